/* The expression engine's step search in C: the optional twin of closures.py and checks.py.
 *
 * native.py flattens a Walk's plan into one int64 program (expression trees, steps, checks;
 * its layout is written down there), and this core walks the same steps in the same order as
 * the compiled closures: digits ascending, roots ascending, read-offs in the inverse's order,
 * a LINEAR tail with bounds.py's windows. So it finds the same solutions in the same order and
 * spends the same nodes. Each node takes one unit of walk.budget; when it reaches 0 the core
 * copies its state into the Walk and calls walk.tick(depth), as the closures do, so the check
 * hook, progress, cancellation and checkpoints run unchanged (an exception there unwinds).
 * Values are int64: native.py sends only plans whose values provably fit, and every operation
 * is checked all the same (an overflow raises OverflowError rather than answer wrongly).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define MAXL 64   /* letters */
#define MAXC 256  /* read-off candidates */

enum { WORD = 0, NUM = 1, SUM = 2, PROD = 3, POW = 4 };
enum { ENUM = 0, SOLVE = 1, READOFF = 2, LINEAR = 3 };
enum { COLUMN = 0, FULL = 1, NONZERO = 2, DIGITS = 3, BOUND = 4 };
enum { OK = 0, NOVALUE = 1, ANY = 2, FAIL = -1 };

typedef struct {
    PyObject_HEAD
    int64_t *prog;
    Py_ssize_t size;
    int base, nletters, nwords, nsteps, nnodes;
    Py_ssize_t *node_at, *step_at, *occ_at, *place_at, *check_at;
    int *first_check; /* per step: index into check_at; first_check[nsteps]: the end */
    /* The run's state (copied from and back to the Walk). */
    int64_t val[MAXL], lo[MAXL], hi[MAXL];
    int64_t *values;
    uint64_t used;
    int64_t budget, count;
    PyObject *walk, *out; /* borrowed during a run */
    PyObject *valname, *valuesname, *usedname, *budgetname, *countname, *tickname, *loname,
        *hiname;
} Steps;

/* ---- arithmetic: Python's floor division and modulo, checked int64 -------------------- */

static inline int64_t floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q--;
    return q;
}

static inline int64_t pmod(int64_t a, int64_t b)
{
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0)))
        r += b;
    return r;
}

static int overflow(void)
{
    PyErr_SetString(PyExc_OverflowError, "a value passed int64 in the native step core");
    return FAIL;
}

static int ipow(int64_t b, int64_t e, int64_t *out)
{
    int64_t r = 1;
    for (; e > 0; e--)
        if (__builtin_mul_overflow(r, b, &r))
            return overflow();
    *out = r;
    return OK;
}

/* ---- expression trees (evaluate.py) ----------------------------------------------------- */

/* A node: kind, value, nargs, then nargs pairs (op, child node); ops are '+', '-', '*', '/'. */
static inline const int64_t *node(const Steps *c, int64_t n) { return c->prog + c->node_at[n]; }

static int eval(const Steps *c, int64_t n, int64_t *out);

/* eval, with a word or a number read in place (most arguments are: no call for them). */
static inline int arg(const Steps *c, int64_t n, int64_t *out)
{
    const int64_t *p = node(c, n);
    if (p[0] == WORD) {
        *out = c->values[p[1]];
        return OK;
    }
    if (p[0] == NUM) {
        *out = p[1];
        return OK;
    }
    return eval(c, n, out);
}

/* compile_value: the exact value (NOVALUE: inexact division, division by 0, 2 ^ -1). */
static int eval(const Steps *c, int64_t n, int64_t *out)
{
    const int64_t *p = node(c, n);
    int64_t kind = p[0], nargs = p[2], v, x, k;
    int r;
    if (kind == WORD) {
        *out = c->values[p[1]];
        return OK;
    }
    if (kind == NUM) {
        *out = p[1];
        return OK;
    }
    if (kind == SUM) {
        int64_t total = 0;
        for (k = 0; k < nargs; k++) {
            if ((r = arg(c, p[4 + 2 * k], &v)) != OK)
                return r;
            if (p[3 + 2 * k] == '-' ? __builtin_sub_overflow(total, v, &total)
                                    : __builtin_add_overflow(total, v, &total))
                return overflow();
        }
        *out = total;
        return OK;
    }
    if ((r = arg(c, p[4], &x)) != OK)
        return r;
    if (kind == PROD) {
        for (k = 1; k < nargs; k++) {
            if ((r = arg(c, p[4 + 2 * k], &v)) != OK)
                return r;
            if (p[3 + 2 * k] == '/') {
                if (v == 0 || x % v)
                    return NOVALUE;
                x /= v;
            } else if (__builtin_mul_overflow(x, v, &x)) {
                return overflow();
            }
        }
        *out = x;
        return OK;
    }
    /* POW (evaluate._power); native.py bounds the exponent, so the loop is short. */
    if ((r = arg(c, p[6], &v)) != OK)
        return r;
    if (v >= 0)
        return ipow(x, v, out);
    if (x == 1 || x == -1)
        return ipow(x, -v, out);
    return NOVALUE;
}

/* a - b, checked. */
static int difference(const Steps *c, int64_t a, int64_t b, int64_t *out)
{
    int64_t x, y;
    int r;
    if ((r = arg(c, a, &x)) != OK || (r = arg(c, b, &y)) != OK)
        return r;
    if (__builtin_sub_overflow(x, y, out))
        return overflow();
    return OK;
}

/* ---- inverses (evaluate.inverse): the values a word may take ------------------------------- */

typedef struct {
    int n;
    int64_t v[MAXC];
} Cands;

/* evaluate.root: the integers x with x ** e == y (e >= 1), appended to xs. */
static int roots_of(int64_t y, int64_t e, int64_t *xs, int *n)
{
    int64_t x, p, k;
    if (e == 1) {
        xs[(*n)++] = y;
        return OK;
    }
    if (y < 0) {
        if (e % 2 == 0)
            return OK;
        int before = *n;
        if (roots_of(-y, e, xs, n) != OK)
            return FAIL;
        for (k = before; k < *n; k++)
            xs[k] = -xs[k];
        return OK;
    }
    /* The floating root, then corrected: the largest x with x ** e <= y. */
    x = (int64_t)pow((double)y, 1.0 / (double)e);
    if (x < 0)
        x = 0;
    for (;;) {
        int64_t r = 1;
        int big = 0;
        for (k = 0; k < e && !big; k++)
            big = __builtin_mul_overflow(r, x, &r);
        if (big || r > y)
            x--;
        else
            break;
    }
    for (;;) {
        int64_t r = 1, z = x + 1;
        int big = 0;
        for (k = 0; k < e && !big; k++)
            big = __builtin_mul_overflow(r, z, &r);
        if (!big && r <= y)
            x = z;
        else
            break;
    }
    if (ipow(x, e, &p) != OK)
        return FAIL;
    if (p != y)
        return OK;
    xs[(*n)++] = x;
    if (e % 2 == 0 && x)
        xs[(*n)++] = -x;
    return OK;
}

static int push(Cands *out, int64_t v)
{
    if (out->n >= MAXC) {
        PyErr_SetString(PyExc_RuntimeError, "too many read-off values for the native core");
        return FAIL;
    }
    out->v[out->n++] = v;
    return OK;
}

/* Invert node n through the path (the argument index at each level) down to the word. */
static int invert(const Steps *c, int64_t n, const int64_t *path, int64_t depth, int64_t y,
                  Cands *out)
{
    if (depth == 0)
        return push(out, y);
    const int64_t *p = node(c, n);
    int64_t kind = p[0], nargs = p[2], at = path[0], k, v;
    int64_t inner = p[4 + 2 * at];
    int r;
    if (kind == SUM) {
        for (k = 0; k < nargs; k++) {
            if (k == at)
                continue;
            if ((r = eval(c, p[4 + 2 * k], &v)) != OK)
                return r;
            if (p[3 + 2 * k] == '+' ? __builtin_sub_overflow(y, v, &y)
                                    : __builtin_add_overflow(y, v, &y))
                return overflow();
        }
        if (p[3 + 2 * at] == '-')
            y = -y;
        return invert(c, inner, path + 1, depth - 1, y, out);
    }
    if (kind == PROD) {
        for (k = nargs - 1; k > at; k--) { /* undo the later factors, last first */
            if ((r = eval(c, p[4 + 2 * k], &v)) != OK)
                return r;
            if (p[3 + 2 * k] == '*') {
                if (v == 0)
                    return y == 0 ? ANY : OK;
                if (y % v)
                    return OK;
                y /= v;
            } else if (v == 0) {
                return OK;
            } else if (__builtin_mul_overflow(y, v, &y)) {
                return overflow();
            }
        }
        if (at == 0)
            return invert(c, inner, path + 1, depth - 1, y, out);
        int64_t q;
        if ((r = eval(c, p[4], &q)) != OK)
            return r;
        for (k = 1; k < at; k++) {
            if ((r = eval(c, p[4 + 2 * k], &v)) != OK)
                return r;
            if (p[3 + 2 * k] == '*') {
                if (__builtin_mul_overflow(q, v, &q))
                    return overflow();
            } else {
                if (v == 0 || q % v)
                    return NOVALUE;
                q /= v;
            }
        }
        if (p[3 + 2 * at] == '*') {
            if (q == 0)
                return y == 0 ? ANY : OK;
            return y % q ? OK : invert(c, inner, path + 1, depth - 1, y / q, out);
        }
        if (y == 0) /* q / x == 0: q is 0 and x any non-zero value */
            return q == 0 ? ANY : OK;
        return (q % y || q / y == 0) ? OK : invert(c, inner, path + 1, depth - 1, q / y, out);
    }
    /* POW: the word is in the base. */
    int64_t e, xs[2];
    int nx = 0;
    if ((r = eval(c, p[6], &e)) != OK)
        return r;
    if (e <= 0)
        return ANY;
    if (roots_of(y, e, xs, &nx) != OK)
        return FAIL;
    for (k = 0; k < nx; k++)
        if ((r = invert(c, inner, path + 1, depth - 1, xs[k], out)) != OK)
            return r; /* ANY for one target: ANY for all (evaluate._each) */
    return OK;
}

/* ---- checks (checks.py) ------------------------------------------------------------------ */

/* Each check: kind, then COLUMN a b m · FULL a b · NONZERO f · DIGITS a b m c nknown known..
 * · BOUND a b, then per word: nfree, top, nfree pairs (weight, low). */

typedef struct {
    int64_t lo, hi;
} Span;

static inline Span mul_span(Span a, Span b, int *bad)
{
    int64_t w, x, y, z;
    *bad |= __builtin_mul_overflow(a.lo, b.lo, &w) | __builtin_mul_overflow(a.lo, b.hi, &x) |
            __builtin_mul_overflow(a.hi, b.lo, &y) | __builtin_mul_overflow(a.hi, b.hi, &z);
    if (a.lo >= 0 && b.lo >= 0)
        return (Span){w, z};
    int64_t lo = w, hi = w;
    lo = x < lo ? x : lo, hi = x > hi ? x : hi;
    lo = y < lo ? y : lo, hi = y > hi ? y : hi;
    lo = z < lo ? z : lo, hi = z > hi ? z : hi;
    return (Span){lo, hi};
}

/* compile_span over the bound check's word spans (words: per word, its offset in prog). */
static Span span(const Steps *c, int64_t n, const Py_ssize_t *words, int *bad)
{
    const int64_t *p = node(c, n);
    int64_t kind = p[0], nargs = p[2], k;
    if (kind == WORD) {
        const int64_t *w = c->prog + words[p[1]];
        int64_t v = c->values[p[1]], nfree = w[0], top = w[1], least, most, lo = v;
        if (!nfree)
            return (Span){v, v};
        uint64_t full = c->base >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << c->base) - 1);
        uint64_t unused = ~c->used & full;
        least = unused ? __builtin_ctzll(unused) : -1;
        most = unused ? 63 - __builtin_clzll(unused) : -1;
        for (k = 0; k < nfree; k++)
            lo += w[2 + 2 * k] * (least > w[3 + 2 * k] ? least : w[3 + 2 * k]);
        return (Span){lo, v + most * top};
    }
    if (kind == NUM)
        return (Span){p[1], p[1]};
    if (kind == SUM) {
        Span total = {0, 0};
        for (k = 0; k < nargs; k++) {
            Span s = span(c, p[4 + 2 * k], words, bad);
            if (p[3 + 2 * k] == '+') {
                *bad |= __builtin_add_overflow(total.lo, s.lo, &total.lo) |
                        __builtin_add_overflow(total.hi, s.hi, &total.hi);
            } else {
                *bad |= __builtin_sub_overflow(total.lo, s.hi, &total.lo) |
                        __builtin_sub_overflow(total.hi, s.lo, &total.hi);
            }
        }
        return total;
    }
    Span s = span(c, p[4], words, bad);
    if (kind == PROD) {
        for (k = 1; k < nargs; k++)
            s = mul_span(s, span(c, p[4 + 2 * k], words, bad), bad);
        return s;
    }
    int64_t e = node(c, p[6])[1], a = 0, b = 0;
    if (s.lo >= 0 || e % 2) {
        *bad |= ipow(s.lo, e, &a) != OK || ipow(s.hi, e, &b) != OK;
        return (Span){a, b};
    }
    *bad |= ipow(-s.lo > s.hi ? -s.lo : s.hi, e, &b) != OK;
    if (s.hi >= 0)
        return (Span){0, b};
    *bad |= ipow(s.hi, e, &a) != OK;
    return (Span){a, b};
}

/* Run one check: 1 passes, 0 fails, FAIL on an error. */
static int check(const Steps *c, Py_ssize_t at)
{
    const int64_t *p = c->prog + at;
    int64_t v, w;
    int r;
    switch (p[0]) {
    case COLUMN:
        if ((r = difference(c, p[1], p[2], &v)) == FAIL)
            return FAIL;
        if (r != OK) { /* a modular equation has no division: cannot happen */
            PyErr_SetString(PyExc_RuntimeError, "no value in a column check");
            return FAIL;
        }
        return pmod(v, p[3]) == 0;
    case FULL:
        if ((r = eval(c, p[1], &v)) != OK || (r = eval(c, p[2], &w)) != OK)
            return r == FAIL ? FAIL : 0;
        return v == w;
    case NONZERO:
        if ((r = eval(c, p[1], &v)) != OK)
            return r == FAIL ? FAIL : 0;
        return v != 0;
    case DIGITS: {
        int64_t m = p[3], cd = p[4], nknown = p[5], total = c->base * (c->base - 1) / 2, k;
        if ((r = difference(c, p[1], p[2], &v)) != OK)
            return r == FAIL ? FAIL : 0;
        for (k = 0; k < nknown; k++)
            total -= c->val[p[6 + k]];
        return pmod(pmod(v, m) + pmod(cd * total, m), m) == 0;
    }
    default: { /* BOUND */
        Py_ssize_t words[c->nwords > 0 ? c->nwords : 1], off = at + 3;
        int t, bad = 0;
        for (t = 0; t < c->nwords; t++) {
            words[t] = off;
            off += 2 + 2 * c->prog[off];
        }
        Span x = span(c, p[1], words, &bad), y = span(c, p[2], words, &bad);
        if (bad)
            return overflow();
        return x.lo <= y.hi && y.lo <= x.hi;
    }
    }
}

/* All of a step's checks, in order, stopping at the first that fails. */
static int checks(const Steps *c, int depth)
{
    int k, r;
    for (k = c->first_check[depth]; k < c->first_check[depth + 1]; k++)
        if ((r = check(c, c->check_at[k])) != 1)
            return r;
    return 1;
}

/* ---- the Walk: state in and out, ticks, solutions -------------------------------------- */

static int put_list(PyObject *list, const int64_t *xs, int n)
{
    int k;
    if (!PyList_Check(list) || PyList_GET_SIZE(list) != n) {
        PyErr_SetString(PyExc_ValueError, "the Walk's state does not match the native program");
        return -1;
    }
    for (k = 0; k < n; k++) {
        PyObject *v = PyLong_FromLongLong(xs[k]);
        if (v == NULL || PyList_SetItem(list, k, v) < 0)
            return -1;
    }
    return 0;
}

static int get_list(PyObject *list, int64_t *xs, int n)
{
    int k;
    if (!PyList_Check(list) || PyList_GET_SIZE(list) != n) {
        PyErr_SetString(PyExc_ValueError, "the Walk's state does not match the native program");
        return -1;
    }
    for (k = 0; k < n; k++) {
        xs[k] = PyLong_AsLongLong(PyList_GET_ITEM(list, k));
        if (xs[k] == -1 && PyErr_Occurred())
            return -1;
    }
    return 0;
}

static int set_int(PyObject *obj, PyObject *name, PyObject *v)
{
    if (v == NULL)
        return -1;
    int r = PyObject_SetAttr(obj, name, v);
    Py_DECREF(v);
    return r;
}

static int get_int(PyObject *obj, PyObject *name, int64_t *out)
{
    PyObject *v = PyObject_GetAttr(obj, name);
    if (v == NULL)
        return -1;
    *out = PyLong_AsLongLong(v);
    Py_DECREF(v);
    return *out == -1 && PyErr_Occurred() ? -1 : 0;
}

/* Copy the state into the Walk (what progress, the tick and the caller read). */
static int sync_out(Steps *c)
{
    PyObject *list;
    int r;
    if ((list = PyObject_GetAttr(c->walk, c->valname)) == NULL)
        return -1;
    r = put_list(list, c->val, c->nletters);
    Py_DECREF(list);
    if (r < 0 || (list = PyObject_GetAttr(c->walk, c->valuesname)) == NULL)
        return -1;
    r = put_list(list, c->values, c->nwords);
    Py_DECREF(list);
    if (r < 0 || set_int(c->walk, c->usedname, PyLong_FromUnsignedLongLong(c->used)) < 0 ||
        set_int(c->walk, c->budgetname, PyLong_FromLongLong(c->budget)) < 0 ||
        set_int(c->walk, c->countname, PyLong_FromLongLong(c->count)) < 0)
        return -1;
    return 0;
}

/* The closures' `st.budget -= 1; if not st.budget: st.tick(depth)`. */
static int spend(Steps *c, int depth)
{
    if (--c->budget != 0)
        return 0;
    if (sync_out(c) < 0)
        return -1;
    PyObject *tick = PyObject_GetAttr(c->walk, c->tickname);
    if (tick == NULL)
        return -1;
    PyObject *r = PyObject_CallFunction(tick, "i", depth);
    Py_DECREF(tick);
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    return get_int(c->walk, c->budgetname, &c->budget);
}

static int emit(Steps *c)
{
    if (c->out == NULL) {
        c->count++;
        return 0;
    }
    PyObject *sol = PyTuple_New(c->nletters);
    int k;
    if (sol == NULL)
        return -1;
    for (k = 0; k < c->nletters; k++) {
        PyObject *v = PyLong_FromLongLong(c->val[k]);
        if (v == NULL) {
            Py_DECREF(sol);
            return -1;
        }
        PyTuple_SET_ITEM(sol, k, v);
    }
    int r = PyList_Append(c->out, sol);
    Py_DECREF(sol);
    return r;
}

/* ---- the steps (closures.py) ------------------------------------------------------------- */

static int step(Steps *c, int depth);

/* Give letter s digit d in its words' values (sign -1: take it back). */
static inline void place(Steps *c, int64_t s, int64_t d)
{
    const int64_t *o = c->prog + c->occ_at[s];
    int64_t k;
    for (k = 0; k < o[0]; k++)
        c->values[o[1 + 2 * k]] += d * o[2 + 2 * k];
}

/* Set digit d for letter s, run the checks, go on, take it back (enum and solve). */
static int try_digit(Steps *c, int depth, int64_t s, int64_t d)
{
    uint64_t bit = (uint64_t)1 << d;
    int r;
    c->val[s] = d;
    place(c, s, d);
    r = checks(c, depth);
    if (r == 1) {
        c->used |= bit;
        r = step(c, depth + 1);
        c->used ^= bit;
    }
    place(c, s, -d);
    return r < 0 ? -1 : 0;
}

static int do_enum(Steps *c, int depth, const int64_t *p)
{
    int64_t s = p[1], d;
    for (d = c->lo[s]; d <= c->hi[s]; d++) {
        if (c->used >> d & 1)
            continue;
        if (spend(c, depth) < 0 || try_digit(c, depth, s, d) < 0)
            return -1;
    }
    c->val[s] = -1;
    return 0;
}

/* SOLVE: slot, a, b, m, low. */
static int do_solve(Steps *c, int depth, const int64_t *p)
{
    int64_t s = p[1], m = p[4], low = p[5], v, r0, r1, need, slope, d;
    if (spend(c, depth) < 0)
        return -1;
    if (difference(c, p[2], p[3], &v) != OK)
        return PyErr_Occurred() ? -1 : (PyErr_SetString(PyExc_RuntimeError, "no value"), -1);
    r0 = pmod(v, m);
    need = pmod(-r0, m);
    if (need % low)
        return 0;
    need /= low;
    place(c, s, 1);
    int r = difference(c, p[2], p[3], &v);
    place(c, s, -1);
    if (r != OK)
        return PyErr_Occurred() ? -1 : (PyErr_SetString(PyExc_RuntimeError, "no value"), -1);
    r1 = pmod(v, m);
    slope = pmod(r1 - r0, m) / low;
    for (d = 0; d < c->base; d++) {
        if (pmod(slope * d - need, c->base))
            continue;
        if (c->used >> d & 1 || d < c->lo[s] || d > c->hi[s])
            continue;
        if (try_digit(c, depth, s, d) < 0)
            return -1;
    }
    c->val[s] = -1;
    return 0;
}

/* Give the word's free letters the digits of v; 0 (and nothing changed) on a conflict. */
static int assign(Steps *c, int64_t word, int64_t v, int64_t *got, int *ngot)
{
    const int64_t *w = c->prog + c->place_at[word];
    int64_t k, s, d;
    int ok;
    *ngot = 0;
    for (k = 0; k < w[0]; k++) {
        d = v % c->base;
        v /= c->base;
        s = w[2 + 2 * k];
        if (s < 0) {
            ok = d == w[3 + 2 * k];
        } else if (c->val[s] >= 0) {
            ok = c->val[s] == d;
        } else {
            ok = c->lo[s] <= d && d <= c->hi[s] && !(c->used >> d & 1);
            if (ok) {
                c->val[s] = d;
                c->used |= (uint64_t)1 << d;
                got[(*ngot)++] = s;
            }
        }
        if (!ok) {
            for (int j = 0; j < *ngot; j++) {
                c->used ^= (uint64_t)1 << c->val[got[j]];
                c->val[got[j]] = -1;
            }
            return 0;
        }
    }
    for (int j = 0; j < *ngot; j++)
        place(c, got[j], c->val[got[j]]);
    return 1;
}

static void release(Steps *c, const int64_t *got, int ngot)
{
    for (int j = 0; j < ngot; j++) {
        int64_t d = c->val[got[j]];
        place(c, got[j], -d);
        c->used ^= (uint64_t)1 << d;
        c->val[got[j]] = -1;
    }
}

/* closures.every: each permutation of the free digits for the word's free letters. */
static int every(Steps *c, int depth, const int64_t *free, int nfree, int k, const int64_t *p,
                 int64_t *choice, uint64_t taken)
{
    int64_t d, j;
    if (k < nfree) {
        for (d = 0; d < c->base; d++) {
            if ((c->used | taken) >> d & 1)
                continue;
            choice[k] = d;
            if (every(c, depth, free, nfree, k + 1, p, choice, taken | (uint64_t)1 << d) < 0)
                return -1;
        }
        return 0;
    }
    if (spend(c, depth) < 0)
        return -1;
    for (j = 0; j < nfree; j++)
        if (choice[j] < c->lo[free[j]] || choice[j] > c->hi[free[j]])
            return 0;
    for (j = 0; j < nfree; j++) {
        c->val[free[j]] = choice[j];
        c->used |= (uint64_t)1 << choice[j];
        place(c, free[j], choice[j]);
    }
    int64_t x, y;
    int r = eval(c, p[5 + p[4]], &x), ok = 0;
    if (r == OK)
        r = eval(c, p[6 + p[4]], &y);
    if (r == FAIL)
        return -1;
    if (r == OK && x == y) {
        ok = checks(c, depth);
        if (ok == 1)
            ok = step(c, depth + 1);
    }
    for (j = 0; j < nfree; j++) {
        c->used ^= (uint64_t)1 << choice[j];
        c->val[free[j]] = -1;
        place(c, free[j], -choice[j]);
    }
    return ok < 0 ? -1 : 0;
}

/* READOFF: word, target, side, npath, path.., full a, full b. */
static int do_readoff(Steps *c, int depth, const int64_t *p)
{
    int64_t word = p[1], y, got[MAXL], k;
    const int64_t *w = c->prog + c->place_at[word];
    Cands found;
    int r, ngot;
    if (spend(c, depth) < 0)
        return -1;
    found.n = 0;
    if ((r = eval(c, p[2], &y)) == OK)
        r = invert(c, p[3], p + 5, p[4], y, &found);
    if (r == FAIL)
        return -1;
    if (r == NOVALUE)
        return 0;
    if (r == ANY) {
        int64_t free[MAXL], choice[MAXL];
        int nfree = 0;
        uint64_t seen = 0;
        for (k = 0; k < w[0]; k++) {
            int64_t s = w[2 + 2 * k];
            if (s >= 0 && c->val[s] < 0 && !(seen >> s & 1)) {
                seen |= (uint64_t)1 << s;
                free[nfree++] = s;
            }
        }
        for (int i = 1; i < nfree; i++) /* sorted by letter */
            for (int j = i; j > 0 && free[j - 1] > free[j]; j--) {
                int64_t t = free[j];
                free[j] = free[j - 1];
                free[j - 1] = t;
            }
        return every(c, depth, free, nfree, 0, p, choice, 0);
    }
    for (k = 0; k < found.n; k++) {
        int64_t v = found.v[k];
        if (v < 0 || v >= w[1])
            continue;
        if (!assign(c, word, v, got, &ngot))
            continue;
        r = checks(c, depth);
        if (r == 1)
            r = step(c, depth + 1);
        release(c, got, ngot);
        if (r < 0)
            return -1;
    }
    return 0;
}

/* ---- LINEAR: the letters left, one equation, bounds.py's windows ------------------------- */

/* LINEAR layout: a, b, n, n times (slot, coef, low, high), then per depth j < n - 1 its sign
 * split (bounds._Signs): npos pos.. nneg neg.. hi_guard lo_guard, has_max [npos pos.. nneg
 * neg..], has_min [npos pos.. nneg neg..]. */

typedef struct {
    const int64_t *pos, *neg, *max_pos, *max_neg, *min_pos, *min_neg;
    int64_t npos, nneg, hi_guard, lo_guard, has_max, has_min;
    int64_t nmax_pos, nmax_neg, nmin_pos, nmin_neg;
} Signs;

static const int64_t *read_signs(const int64_t *q, Signs *sg)
{
    sg->npos = *q++;
    sg->pos = q;
    q += sg->npos;
    sg->nneg = *q++;
    sg->neg = q;
    q += sg->nneg;
    sg->hi_guard = *q++;
    sg->lo_guard = *q++;
    sg->has_max = *q++;
    if (sg->has_max) {
        sg->nmax_pos = *q++;
        sg->max_pos = q;
        q += sg->nmax_pos;
        sg->nmax_neg = *q++;
        sg->max_neg = q;
        q += sg->nmax_neg;
    }
    sg->has_min = *q++;
    if (sg->has_min) {
        sg->nmin_pos = *q++;
        sg->min_pos = q;
        q += sg->nmin_pos;
        sg->nmin_neg = *q++;
        sg->min_neg = q;
        q += sg->nmin_neg;
    }
    return q;
}

/* sum(map(mul, xs, ys)) over the shorter of the two, ys read forwards or backwards. */
static inline int64_t dot(const int64_t *xs, int64_t nx, const int64_t *ys, int64_t ny, int back)
{
    int64_t k, n = nx < ny ? nx : ny, total = 0;
    for (k = 0; k < n; k++)
        total += xs[k] * ys[back ? ny - 1 - k : k];
    return total;
}

#define SENTINEL ((int64_t)1 << 61) /* bounds.py's 1 << 400: an empty window */

/* bounds._best: the max (side 1) or min (side 0) when 0 may not go where rearrangement puts it. */
static int64_t best(const Signs *sg, const int64_t *rest, int64_t nr, int full, int side)
{
    int have = 0;
    int64_t value = 0, v;
    if (!full) {
        value = dot(sg->pos, sg->npos, rest, nr, side) + dot(sg->neg, sg->nneg, rest, nr, !side);
        have = 1;
    }
    if (side ? sg->has_max : sg->has_min) {
        if (side)
            v = dot(sg->max_pos, sg->nmax_pos, rest, nr, 1) +
                dot(sg->max_neg, sg->nmax_neg, rest, nr, 0);
        else
            v = dot(sg->min_pos, sg->nmin_pos, rest, nr, 0) +
                dot(sg->min_neg, sg->nmin_neg, rest, nr, 1);
        if (!have || (side ? v > value : v < value))
            value = v;
        have = 1;
    }
    if (!have)
        return side ? -SENTINEL : SENTINEL;
    return value;
}

/* bounds.Ranges: the oriented window (a, b) of a depth with coefficient coef, given the used
 * digits. */
static void window_of(const Steps *c, const Signs *sg, int64_t coef, uint64_t used, int64_t *a,
                      int64_t *b)
{
    int64_t avail[MAXL], na = 0, x;
    for (x = 0; x < c->base; x++)
        if (!(used >> x & 1))
            avail[na++] = x;
    int64_t hi = dot(sg->pos, sg->npos, avail, na, 1) + dot(sg->neg, sg->nneg, avail, na, 0);
    int64_t lo = dot(sg->pos, sg->npos, avail, na, 0) + dot(sg->neg, sg->nneg, avail, na, 1);
    if (na && avail[0] == 0 && (sg->hi_guard || sg->lo_guard)) {
        int full = sg->npos + sg->nneg == na;
        if (sg->hi_guard == 1 || (sg->hi_guard == 2 && full))
            hi = best(sg, avail + 1, na - 1, full, 1);
        if (sg->lo_guard == 1 || (sg->lo_guard == 2 && full))
            lo = best(sg, avail + 1, na - 1, full, 0);
    }
    *a = coef > 0 ? hi : lo;
    *b = coef > 0 ? lo : hi;
}

typedef struct {
    int64_t n;
    const int64_t *rows; /* n times (slot, coef, low, high) */
    Signs signs[MAXL];
} Tail;

static int tail(Steps *c, int depth, const Tail *t, int64_t j, int64_t s)
{
    const int64_t *row = t->rows + 4 * j;
    int64_t last = t->n - 1, d, a, b;
    uint64_t used = c->used;
    if (spend(c, depth) < 0)
        return -1;
    if (j == last) {
        int64_t q = floordiv(-s, row[1]);
        if (pmod(-s, row[1]) == 0 && row[2] <= q && q <= row[3] && !(used >> q & 1)) {
            c->val[row[0]] = q;
            int r = step(c, depth + 1);
            c->val[row[0]] = -1;
            return r;
        }
        return 0;
    }
    window_of(c, &t->signs[j], row[1], used, &a, &b);
    int64_t lo = -floordiv(s + a, row[1]), hi = floordiv(-s - b, row[1]);
    if (lo < row[2])
        lo = row[2];
    if (hi > row[3])
        hi = row[3];
    for (d = lo; d <= hi; d++) {
        uint64_t bit = (uint64_t)1 << d;
        if (used & bit)
            continue;
        c->val[row[0]] = d;
        c->used = used | bit;
        if (tail(c, depth, t, j + 1, s + row[1] * d) < 0)
            return -1;
    }
    c->used = used;
    c->val[row[0]] = -1;
    return 0;
}

static int do_linear(Steps *c, int depth, const int64_t *p)
{
    Tail t;
    int64_t s, j;
    int r = difference(c, p[1], p[2], &s);
    if (r == FAIL)
        return -1;
    if (r != OK)
        return 0;
    t.n = p[3];
    t.rows = p + 4;
    const int64_t *q = p + 4 + 4 * t.n;
    for (j = 0; j + 1 < t.n; j++)
        q = read_signs(q, &t.signs[j]);
    return tail(c, depth, &t, 0, s);
}

static int step(Steps *c, int depth)
{
    if (depth == c->nsteps)
        return emit(c);
    const int64_t *p = c->prog + c->step_at[depth];
    switch (p[0]) {
    case ENUM:
        return do_enum(c, depth, p);
    case SOLVE:
        return do_solve(c, depth, p);
    case READOFF:
        return do_readoff(c, depth, p);
    default:
        return do_linear(c, depth, p);
    }
}

/* ---- the type: parse the program once, run it from a depth ------------------------------- */

static Py_ssize_t node_size(const int64_t *p) { return 3 + 2 * p[2]; }

static Py_ssize_t check_size(const Steps *c, const int64_t *p)
{
    switch (p[0]) {
    case COLUMN:
        return 4;
    case FULL:
        return 3;
    case NONZERO:
        return 2;
    case DIGITS:
        return 6 + p[5];
    default: {
        Py_ssize_t off = 3;
        for (int t = 0; t < c->nwords; t++)
            off += 2 + 2 * p[off];
        return off;
    }
    }
}

static Py_ssize_t step_size(const int64_t *p)
{
    switch (p[0]) {
    case ENUM:
        return 2;
    case SOLVE:
        return 6;
    case READOFF:
        return 7 + p[4];
    default: {
        const int64_t *q = p + 4 + 4 * p[3];
        Signs sg;
        for (int64_t j = 0; j + 1 < p[3]; j++)
            q = read_signs(q, &sg);
        return q - p;
    }
    }
}

static void Steps_dealloc(Steps *c)
{
    PyMem_Free(c->prog);
    PyMem_Free(c->values);
    PyMem_Free(c->node_at);
    PyMem_Free(c->step_at);
    PyMem_Free(c->occ_at);
    PyMem_Free(c->place_at);
    PyMem_Free(c->check_at);
    PyMem_Free(c->first_check);
    Py_XDECREF(c->valname);
    Py_XDECREF(c->valuesname);
    Py_XDECREF(c->usedname);
    Py_XDECREF(c->budgetname);
    Py_XDECREF(c->countname);
    Py_XDECREF(c->tickname);
    Py_XDECREF(c->loname);
    Py_XDECREF(c->hiname);
    Py_TYPE(c)->tp_free((PyObject *)c);
}

static PyObject *bad_program(Steps *c)
{
    if (!PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, "malformed native step program");
    Py_DECREF(c);
    return NULL;
}

static PyObject *Steps_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *seq;
    static char *kw[] = {"program", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O", kw, &seq))
        return NULL;
    Steps *c = (Steps *)type->tp_alloc(type, 0);
    if (c == NULL)
        return NULL;
    PyObject *fast = PySequence_Fast(seq, "program: expected a sequence of ints");
    if (fast == NULL)
        return bad_program(c);
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast), k, at;
    c->prog = PyMem_Malloc(sizeof(int64_t) * (size_t)(n + 1));
    if (c->prog == NULL) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return bad_program(c);
    }
    for (k = 0; k < n; k++) {
        c->prog[k] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fast, k));
        if (c->prog[k] == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return bad_program(c);
        }
    }
    Py_DECREF(fast);
    c->size = n;
    if (n < 5)
        return bad_program(c);
    const int64_t *p = c->prog;
    c->base = (int)p[0];
    c->nletters = (int)p[1];
    c->nwords = (int)p[2];
    c->nsteps = (int)p[3];
    c->nnodes = (int)p[4];
    if (c->base < 2 || c->base > 62 || c->nletters < 0 || c->nletters > MAXL || c->nwords < 0 ||
        c->nsteps < 0 || c->nnodes < 0)
        return bad_program(c);
    c->values = PyMem_Calloc((size_t)c->nwords + 1, sizeof(int64_t));
    c->node_at = PyMem_Calloc((size_t)c->nnodes + 1, sizeof(Py_ssize_t));
    c->step_at = PyMem_Calloc((size_t)c->nsteps + 1, sizeof(Py_ssize_t));
    c->occ_at = PyMem_Calloc((size_t)c->nletters + 1, sizeof(Py_ssize_t));
    c->place_at = PyMem_Calloc((size_t)c->nwords + 1, sizeof(Py_ssize_t));
    c->first_check = PyMem_Calloc((size_t)c->nsteps + 2, sizeof(int));
    if (!c->values || !c->node_at || !c->step_at || !c->occ_at || !c->place_at ||
        !c->first_check) {
        PyErr_NoMemory();
        return bad_program(c);
    }
    /* Layout: header; per letter its occurrences (n, n pairs word weight); per word its
     * places (n, top, n pairs slot const); the nodes; per step the step, then its checks. */
    at = 5;
    for (k = 0; k < c->nletters; k++) {
        c->occ_at[k] = at;
        at += 1 + 2 * c->prog[at];
        if (at > n)
            return bad_program(c);
    }
    for (k = 0; k < c->nwords; k++) {
        c->place_at[k] = at;
        at += 2 + 2 * c->prog[at];
        if (at > n)
            return bad_program(c);
    }
    for (k = 0; k < c->nnodes; k++) {
        c->node_at[k] = at;
        at += node_size(c->prog + at);
        if (at > n)
            return bad_program(c);
    }
    Py_ssize_t ncheck = 0, start = at;
    for (int pass = 0; pass < 2; pass++) {
        at = start;
        ncheck = 0;
        for (k = 0; k < c->nsteps; k++) {
            c->step_at[k] = at;
            at += step_size(c->prog + at);
            if (at >= n + 1)
                return bad_program(c);
            int64_t m = c->prog[at++];
            c->first_check[k] = (int)ncheck;
            for (int64_t j = 0; j < m; j++) {
                if (pass)
                    c->check_at[ncheck] = at;
                ncheck++;
                at += check_size(c, c->prog + at);
                if (at > n)
                    return bad_program(c);
            }
        }
        c->first_check[c->nsteps] = (int)ncheck;
        if (!pass) {
            c->check_at = PyMem_Calloc((size_t)ncheck + 1, sizeof(Py_ssize_t));
            if (!c->check_at) {
                PyErr_NoMemory();
                return bad_program(c);
            }
        }
    }
    if (at != n)
        return bad_program(c);
    c->valname = PyUnicode_InternFromString("val");
    c->valuesname = PyUnicode_InternFromString("values");
    c->usedname = PyUnicode_InternFromString("used");
    c->budgetname = PyUnicode_InternFromString("budget");
    c->countname = PyUnicode_InternFromString("count");
    c->tickname = PyUnicode_InternFromString("tick");
    c->loname = PyUnicode_InternFromString("lo");
    c->hiname = PyUnicode_InternFromString("hi");
    if (!c->loname || !c->hiname || !c->valname || !c->valuesname || !c->usedname || !c->budgetname || !c->countname ||
        !c->tickname)
        return bad_program(c);
    return (PyObject *)c;
}

/* run(walk, depth, out): the steps from depth on over the Walk's state, solutions appended to
 * out (a list) or, with out None, counted into walk.count. */
static PyObject *Steps_run(Steps *c, PyObject *args)
{
    PyObject *walk, *out, *list;
    int depth, r;
    if (!PyArg_ParseTuple(args, "OiO", &walk, &depth, &out))
        return NULL;
    if (depth < 0 || depth > c->nsteps || (out != Py_None && !PyList_Check(out))) {
        PyErr_SetString(PyExc_ValueError, "run: bad depth or output list");
        return NULL;
    }
    if (c->walk != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "the native step core is already running");
        return NULL;
    }
    int64_t used;
    if ((list = PyObject_GetAttr(walk, c->valname)) == NULL)
        return NULL;
    r = get_list(list, c->val, c->nletters);
    Py_DECREF(list);
    if (r < 0 || (list = PyObject_GetAttr(walk, c->valuesname)) == NULL)
        return NULL;
    r = get_list(list, c->values, c->nwords);
    Py_DECREF(list);
    if (r < 0 || (list = PyObject_GetAttr(walk, c->loname)) == NULL)
        return NULL;
    r = get_list(list, c->lo, c->nletters);
    Py_DECREF(list);
    if (r < 0 || (list = PyObject_GetAttr(walk, c->hiname)) == NULL)
        return NULL;
    r = get_list(list, c->hi, c->nletters);
    Py_DECREF(list);
    if (r < 0 || get_int(walk, c->usedname, &used) < 0 ||
        get_int(walk, c->budgetname, &c->budget) < 0 ||
        get_int(walk, c->countname, &c->count) < 0)
        return NULL;
    c->used = (uint64_t)used;
    c->walk = walk;
    c->out = out == Py_None ? NULL : out;
    r = step(c, depth);
    if (r >= 0)
        r = sync_out(c);
    c->walk = c->out = NULL;
    if (r < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef Steps_methods[] = {
    {"run", (PyCFunction)Steps_run, METH_VARARGS,
     "run(walk, depth, out) -> None: the steps from depth on over the Walk's state; solutions "
     "appended to out, or counted into walk.count when out is None."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject StepsType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "alphametic.steps._native.Steps",
    .tp_basicsize = sizeof(Steps),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The compiled steps of one Walk (see native.py).",
    .tp_new = Steps_new,
    .tp_dealloc = (destructor)Steps_dealloc,
    .tp_methods = Steps_methods,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "alphametic.steps._native",
    "The expression engine's step search in C (the twin of closures.py and checks.py).", -1,
    NULL,
};

PyMODINIT_FUNC PyInit__native(void)
{
    if (PyType_Ready(&StepsType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&StepsType);
    if (PyModule_AddObject(m, "Steps", (PyObject *)&StepsType) < 0) {
        Py_DECREF(&StepsType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
