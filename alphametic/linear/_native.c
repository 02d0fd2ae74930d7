/* The coefficient engine's hot loop in C: the optional twin of core.py and counting.py.
 *
 * It walks the same tree as the pure-Python engine: letters in plan order, digits ascending
 * with the column stride, the same oriented interval windows (a port of bounds.py's
 * rest_range, fed the same sign splits), the last letter solved by division. So it finds the
 * same solutions in the same order and counts the same nodes in count mode (less the Python
 * memo's hits); in first and all modes both skip a dead end met again (a state with no
 * solution below), each with its own memo.
 * The search is an explicit stack, so it can stop after a budget of nodes (or a batch of
 * solutions) and resume: Python keeps the check hook, progress and cancellation.
 * Values are int64: native.py sends only puzzles whose sums provably fit (see FIT there).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define MAXN 64
#define SENTINEL ((int64_t)1 << 61) /* bounds.py's 1 << 400: an empty window */

typedef struct {
    int npos, nneg, hi_guard, lo_guard, has_max, has_min;
    int nmax_pos, nmax_neg, nmin_pos, nmin_neg;
    int64_t *pos, *neg, *max_pos, *max_neg, *min_pos, *min_neg;
} Signs;

typedef struct {
    PyObject_HEAD
    int base, last, top, level, done, emit_full, nslots, nfixed, start;
    uint64_t cache_mask;
    int64_t coef[MAXN], dlo[MAXN], dhi[MAXN], step[MAXN], g[MAXN], inv[MAXN];
    int64_t with0[MAXN + 1], free0[MAXN + 1];
    int slots[MAXN], fixed[MAXN];
    Signs signs[MAXN];
    int64_t *store;                 /* the sign arrays of every depth, one block */
    uint64_t *ckey;                 /* window cache: key + 1 (0 = empty slot) */
    int64_t *ca, *cb;
    /* the stack: partial sum, used digits, next digit, last digit and stride per level */
    int64_t S[MAXN], D[MAXN], H[MAXN], M[MAXN];
    uint64_t U[MAXN];
    int path[MAXN];
    /* Count mode's memo of states (depth, partial sum, used digits) -> solutions below, as
     * counting.py keeps it: dropped when under 1 in 8 of the first PROBE stores had hits. */
    int64_t T[MAXN];                /* solutions counted so far below each level */
    uint64_t *mkey;                 /* used << 6 | depth, + 1 (0 = empty slot) */
    int64_t *msum, *mval;
    int64_t mslots, mfill, hits, probe, remember;
    PyObject *pathlist;
} Core;

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

/* sum(map(mul, xs, ys)) over the shorter of the two, ys read forwards or backwards. */
static inline int64_t dot(const int64_t *xs, int nx, const int *ys, int ny, int backwards)
{
    int k, n = nx < ny ? nx : ny;
    int64_t total = 0;
    for (k = 0; k < n; k++)
        total += xs[k] * ys[backwards ? ny - 1 - k : k];
    return total;
}

/* bounds._best: the max (side 1) or min (side 0) when 0 may not go where rearrangement puts it. */
static int64_t best(const Signs *sg, const int *rest, int nr, int full, int side)
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

/* bounds.Ranges: the oriented window (a, b) of depth i given the used digits, cached. */
static void window_of(Core *c, int i, uint64_t used, int64_t *a, int64_t *b)
{
    uint64_t key = used << 6 | (uint64_t)i;
    uint64_t slot = (key * 0x9E3779B97F4A7C15ULL >> 20) & c->cache_mask;
    if (c->ckey[slot] == key + 1) {
        *a = c->ca[slot];
        *b = c->cb[slot];
        return;
    }
    const Signs *sg = &c->signs[i];
    int avail[MAXN], na = 0, x;
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
    if (c->coef[i] > 0) {
        *a = hi;
        *b = lo;
    } else {
        *a = lo;
        *b = hi;
    }
    c->ckey[slot] = key + 1;
    c->ca[slot] = *a;
    c->cb[slot] = *b;
}

/* counting.py's idle(): arrangements of the zero-coefficient letters after a solution. */
static int64_t idle(const Core *c, uint64_t used)
{
    int j;
    for (j = c->last + 1; j < c->start; j++) {
        int64_t d = c->dlo[j];
        if (d > c->dhi[j] || used >> d & 1)
            return 0;
        used |= (uint64_t)1 << d;
    }
    int free = c->base - __builtin_popcountll(used);
    return used & 1 ? c->with0[free] : c->free0[free];
}

#define MEMO_CAP ((int64_t)1 << 18) /* core.py's MEMO_CAP */
#define PROBE 256                    /* core.py's PROBE */

static inline uint64_t memo_slot(const Core *c, uint64_t key, int64_t s)
{
    uint64_t h = (key ^ (uint64_t)s * 0xC2B2AE3D27D4EB4FULL) * 0x9E3779B97F4A7C15ULL;
    return (h >> 17) & (uint64_t)(c->mslots - 1);
}

/* Return 1 and the count if the state is in the memo. */
static int memo_get(const Core *c, int i, int64_t s, uint64_t used, int64_t *value)
{
    if (!c->mslots)
        return 0;
    uint64_t key = (used << 6 | (uint64_t)i) + 1, k = memo_slot(c, key, s);
    while (c->mkey[k]) {
        if (c->mkey[k] == key && c->msum[k] == s) {
            *value = c->mval[k];
            return 1;
        }
        k = (k + 1) & (uint64_t)(c->mslots - 1);
    }
    return 0;
}

static void memo_insert(Core *c, uint64_t key, int64_t s, int64_t value)
{
    uint64_t k = memo_slot(c, key, s);
    while (c->mkey[k])
        k = (k + 1) & (uint64_t)(c->mslots - 1);
    c->mkey[k] = key;
    c->msum[k] = s;
    c->mval[k] = value;
    c->mfill++;
}

static void memo_free(Core *c)
{
    PyMem_Free(c->mkey);
    PyMem_Free(c->msum);
    PyMem_Free(c->mval);
    c->mkey = NULL;
    c->msum = c->mval = NULL;
    c->mslots = c->mfill = 0;
}

/* Make room for one more entry (the table at most half full); 0 when memory ran out. */
static int memo_room(Core *c)
{
    if (c->mslots && 2 * (c->mfill + 1) <= c->mslots)
        return 1;
    int64_t old = c->mslots, n = old ? 2 * old : 4096, k;
    uint64_t *okey = c->mkey;
    int64_t *osum = c->msum, *oval = c->mval;
    c->mkey = PyMem_Calloc((size_t)n, sizeof(uint64_t));
    c->msum = PyMem_Malloc(sizeof(int64_t) * (size_t)n);
    c->mval = PyMem_Malloc(sizeof(int64_t) * (size_t)n);
    if (!c->mkey || !c->msum || !c->mval) {
        PyMem_Free(okey);
        PyMem_Free(osum);
        PyMem_Free(oval);
        memo_free(c);
        c->remember = 0; /* no memory for it: search on without the memo */
        return 0;
    }
    c->mslots = n;
    c->mfill = 0;
    for (k = 0; k < old; k++)
        if (okey[k])
            memo_insert(c, okey[k], osum[k], oval[k]);
    PyMem_Free(okey);
    PyMem_Free(osum);
    PyMem_Free(oval);
    return 1;
}

/* Keep a finished level's count, and decide after PROBE stores whether the memo pays. */
static void memo_put(Core *c, int i, int64_t s, uint64_t used, int64_t value)
{
    if (c->mfill >= MEMO_CAP || !memo_room(c))
        return;
    memo_insert(c, (used << 6 | (uint64_t)i) + 1, s, value);
    if (c->probe && !--c->probe) {
        c->remember = c->hits * 8 >= PROBE;
        if (!c->remember)
            memo_free(c);
    }
}

/* Set up level i (its stride applied to lo); return 0 when the column check prunes it. */
static int enter(Core *c, int i, int64_t s, uint64_t used, int64_t lo, int64_t hi)
{
    int64_t m = c->step[i];
    if (m > 1) {
        if (pmod(s, c->g[i]))
            return 0;
        int64_t k = pmod(-s / c->g[i], m);
        if (m < ((int64_t)1 << 31)) { /* the usual case: int64 products, no 128-bit modulo */
            lo += pmod(k * c->inv[i] - lo, m);
        } else {
            __int128 r = ((__int128)k * c->inv[i] - lo) % m;
            lo += (int64_t)(r < 0 ? r + m : r);
        }
    }
    c->S[i] = s;
    c->U[i] = used;
    c->D[i] = lo;
    c->H[i] = hi;
    c->M[i] = m;
    c->level = i;
    return 1;
}

/* Whether entering depth i costs a node (as core.py's node()/tails() calls do). */
static inline int costs(const Core *c, int i)
{
    return i <= c->last - 2 || i == c->top;
}

/* Walk on until the budget is spent, `want` solutions are in `out`, `turns` loop turns are
 * taken (a node's cost varies up to base * base turns: the clock must still be looked at
 * within milliseconds, whatever the nodes cost), or the tree ends.
 * Count mode (out == NULL) adds the solutions to *found. Returns -1 on a Python error,
 * else the depth of the node that spent the last unit of budget (or the current level). */
static int walk(Core *c, int64_t *budget, int64_t turns, int64_t *found, PyObject *out,
                Py_ssize_t want)
{
    const int last = c->last;
    const int64_t clast = c->coef[last], lo2 = c->dlo[last], hi2 = c->dhi[last];
    while (c->level >= c->top) {
        if (--turns == 0)
            return c->level; /* out of turns, nodes left: the caller looks at the clock */
        int i = c->level;
        int64_t d = c->D[i];
        if (d > c->H[i]) {
            /* Count mode keeps every finished state's count; solve mode only those with no
             * solution below (dead ends), which it may skip as count mode does: so first
             * mode visits no more states than count mode on a puzzle with none. */
            if (c->remember && i > c->top && costs(c, i) && (out == NULL || c->T[i] == 0))
                memo_put(c, i, c->S[i], c->U[i], c->T[i]);
            if (i > c->top)
                c->T[i - 1] += c->T[i];
            c->level--;
            continue;
        }
        c->D[i] = d + c->M[i];
        uint64_t used = c->U[i];
        if (used >> d & 1)
            continue;
        uint64_t u = used | (uint64_t)1 << d;
        int64_t t = c->S[i] + c->coef[i] * d;
        c->path[i] = (int)d;
        if (i + 1 == last) {
            int64_t num = -t;
            if (pmod(num, clast))
                continue;
            int64_t q = floordiv(num, clast);
            if (q < lo2 || q > hi2 || u >> q & 1)
                continue;
            c->path[last] = (int)q;
            if (out == NULL) {
                int64_t k = idle(c, u | (uint64_t)1 << q);
                *found += k;
                c->T[i] += k;
                continue;
            }
            int k, n = c->emit_full ? c->nslots : last + 1;
            PyObject *sol = PyTuple_New(n);
            if (sol == NULL)
                return -1;
            for (k = 0; k < n; k++) {
                int v;
                if (c->emit_full) {
                    int slot = c->slots[k];
                    v = slot < c->nfixed ? c->fixed[slot] : c->path[slot - c->nfixed];
                } else {
                    v = c->path[k];
                }
                PyTuple_SET_ITEM(sol, k, PyLong_FromLong(v));
            }
            int bad = PyList_Append(out, sol);
            Py_DECREF(sol);
            if (bad)
                return -1;
            c->T[i] += 1;
            if (PyList_GET_SIZE(out) >= want)
                return i;
            continue;
        }
        int i1 = i + 1;
        int64_t a, b, c1 = c->coef[i1];
        window_of(c, i1, u, &a, &b);
        int64_t x = -floordiv(t + a, c1), y = floordiv(-t - b, c1);
        if (x < c->dlo[i1])
            x = c->dlo[i1];
        if (y > c->dhi[i1])
            y = c->dhi[i1];
        if (x > y)
            continue;
        int cost = costs(c, i1);
        int64_t known;
        if (cost && c->remember && memo_get(c, i1, t, u, &known)) {
            c->hits++; /* counted before (solve mode: a dead end): no node, as in counting.py */
            if (out == NULL)
                *found += known;
            c->T[i] += known;
            continue;
        }
        c->T[i1] = 0;
        if (!enter(c, i1, t, u, x, y))
            c->level = i; /* pruned by its column: stay on this level */
        if (cost && --*budget == 0)
            return i1;
    }
    c->done = 1;
    return c->level < c->top ? c->top : c->level;
}

/* Copy the stack's digits into the Python path list (progress reads it). */
static int sync_path(Core *c)
{
    int k;
    for (k = c->top; k <= c->last && k < (int)PyList_GET_SIZE(c->pathlist); k++) {
        PyObject *v = PyLong_FromLong(c->path[k]);
        if (v == NULL || PyList_SetItem(c->pathlist, k, v) < 0)
            return -1;
    }
    return 0;
}

static int read_i64s(PyObject *seq, int64_t *dst, int cap, int *count)
{
    PyObject *fast = PySequence_Fast(seq, "expected a sequence of ints");
    if (fast == NULL)
        return -1;
    Py_ssize_t k, n = PySequence_Fast_GET_SIZE(fast);
    if (n > cap) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "sequence too long for the native core");
        return -1;
    }
    for (k = 0; k < n; k++) {
        dst[k] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fast, k));
        if (dst[k] == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
    }
    Py_DECREF(fast);
    if (count)
        *count = (int)n;
    return 0;
}

/* Read one depth's bounds._Signs tuple (pos, neg, hi_guard, lo_guard, for_max, for_min). */
static int read_signs(Signs *sg, PyObject *tup, int64_t **cursor)
{
    int64_t buf[MAXN];
    int n;
    PyObject *item;
    if (!PyTuple_Check(tup) || PyTuple_GET_SIZE(tup) != 6) {
        PyErr_SetString(PyExc_TypeError, "signs: expected a 6-tuple");
        return -1;
    }
#define TAKE(obj, field, cnt)                                   \
    do {                                                        \
        if (read_i64s((obj), buf, MAXN, &n) < 0)                \
            return -1;                                          \
        sg->field = *cursor;                                    \
        memcpy(*cursor, buf, sizeof(int64_t) * (size_t)n);      \
        *cursor += n;                                           \
        sg->cnt = n;                                            \
    } while (0)
    TAKE(PyTuple_GET_ITEM(tup, 0), pos, npos);
    TAKE(PyTuple_GET_ITEM(tup, 1), neg, nneg);
    sg->hi_guard = (int)PyLong_AsLong(PyTuple_GET_ITEM(tup, 2));
    sg->lo_guard = (int)PyLong_AsLong(PyTuple_GET_ITEM(tup, 3));
    item = PyTuple_GET_ITEM(tup, 4);
    sg->has_max = item != Py_None;
    if (sg->has_max) {
        TAKE(PyTuple_GetItem(item, 0), max_pos, nmax_pos);
        TAKE(PyTuple_GetItem(item, 1), max_neg, nmax_neg);
    }
    item = PyTuple_GET_ITEM(tup, 5);
    sg->has_min = item != Py_None;
    if (sg->has_min) {
        TAKE(PyTuple_GetItem(item, 0), min_pos, nmin_pos);
        TAKE(PyTuple_GetItem(item, 1), min_neg, nmin_neg);
    }
#undef TAKE
    return PyErr_Occurred() ? -1 : 0;
}

static void Core_dealloc(Core *c)
{
    PyMem_Free(c->store);
    PyMem_Free(c->ckey);
    PyMem_Free(c->ca);
    PyMem_Free(c->cb);
    memo_free(c);
    Py_XDECREF(c->pathlist);
    Py_TYPE(c)->tp_free((PyObject *)c);
}

static PyObject *Core_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    int base, last, top, start;
    long long s;
    unsigned long long used;
    PyObject *coef, *dlo, *dhi, *step, *g, *inv, *signs, *fixed, *slots, *with0, *free0, *path;
    static char *kw[] = {"base", "last", "top", "s", "used", "coef", "dlo", "dhi", "step", "g",
                         "inv", "signs", "fixed", "slots", "start", "with0", "free0", "path",
                         NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "iiiLKOOOOOOOOOiOOO!", kw, &base, &last, &top,
                                     &s, &used, &coef, &dlo, &dhi, &step, &g, &inv, &signs,
                                     &fixed, &slots, &start, &with0, &free0, &PyList_Type, &path))
        return NULL;
    if (base < 2 || base > 62 || last < 1 || last >= MAXN || top < 0 || top >= last) {
        PyErr_SetString(PyExc_ValueError, "puzzle outside the native core's range");
        return NULL;
    }
    Core *c = (Core *)type->tp_alloc(type, 0);
    if (c == NULL)
        return NULL;
    c->base = base;
    c->last = last;
    c->top = top;
    c->start = start;
    Py_INCREF(path);
    c->pathlist = path;
    int n, k, nfixed = 0;
    int64_t tmp[MAXN];
    if (read_i64s(coef, c->coef, MAXN, &n) < 0 || read_i64s(dlo, c->dlo, MAXN, NULL) < 0 ||
        read_i64s(dhi, c->dhi, MAXN, NULL) < 0 || read_i64s(step, c->step, MAXN, NULL) < 0 ||
        read_i64s(g, c->g, MAXN, NULL) < 0 || read_i64s(inv, c->inv, MAXN, NULL) < 0 ||
        read_i64s(with0, c->with0, MAXN + 1, NULL) < 0 ||
        read_i64s(free0, c->free0, MAXN + 1, NULL) < 0 ||
        read_i64s(fixed, tmp, MAXN, &nfixed) < 0)
        goto fail;
    c->nfixed = nfixed;
    for (k = 0; k < nfixed; k++)
        c->fixed[k] = (int)tmp[k];
    c->emit_full = slots != Py_None;
    if (c->emit_full) {
        if (read_i64s(slots, tmp, MAXN, &c->nslots) < 0)
            goto fail;
        for (k = 0; k < c->nslots; k++)
            c->slots[k] = (int)tmp[k];
    }
    /* Sign splits: each depth's arrays hold at most 6 * MAXN numbers. */
    c->store = PyMem_Malloc(sizeof(int64_t) * 6 * MAXN * (size_t)last);
    int bits = base <= 10 ? 14 : 16;
    c->cache_mask = ((uint64_t)1 << bits) - 1;
    c->ckey = PyMem_Calloc((size_t)1 << bits, sizeof(uint64_t));
    c->ca = PyMem_Malloc(sizeof(int64_t) << bits);
    c->cb = PyMem_Malloc(sizeof(int64_t) << bits);
    if (!c->store || !c->ckey || !c->ca || !c->cb) {
        PyErr_NoMemory();
        goto fail;
    }
    int64_t *cursor = c->store;
    if (!PyList_Check(signs) || PyList_GET_SIZE(signs) != last) {
        PyErr_SetString(PyExc_ValueError, "signs: one per depth below the last");
        goto fail;
    }
    for (k = top; k < last; k++)
        if (read_signs(&c->signs[k], PyList_GET_ITEM(signs, k), &cursor) < 0)
            goto fail;
    /* The prefix's digits (given() put them in the path): solutions start with them. */
    for (k = 0; k < top && k < (int)PyList_GET_SIZE(path); k++) {
        c->path[k] = (int)PyLong_AsLong(PyList_GET_ITEM(path, k));
        if (PyErr_Occurred())
            goto fail;
    }
    /* The root: search.py's window for depth top, clamped to its digits. */
    int64_t a, b;
    window_of(c, top, (uint64_t)used, &a, &b);
    int64_t x = -floordiv((int64_t)s + a, c->coef[top]), y = floordiv(-(int64_t)s - b, c->coef[top]);
    if (x < c->dlo[top])
        x = c->dlo[top];
    if (y > c->dhi[top])
        y = c->dhi[top];
    c->level = top - 1;
    c->done = 0;
    c->remember = 1;
    c->probe = PROBE;
    c->T[top] = 0;
    c->S[top] = s; /* the first run() spends a node on the root, as core.py does */
    c->U[top] = used;
    c->D[top] = x;
    c->H[top] = y;
    c->M[top] = -1; /* marks the root not yet entered */
    return (PyObject *)c;
fail:
    Py_DECREF(c);
    return NULL;
}

/* Enter the root on the first call (spending its node); return 0 if it ran out of budget. */
static int root(Core *c, int64_t *budget)
{
    if (c->M[c->top] != -1)
        return 1;
    int t = c->top;
    int64_t x = c->D[t], y = c->H[t];
    c->M[t] = 1;
    if (x > y || !enter(c, t, c->S[t], c->U[t], x, y)) {
        c->level = t - 1;
        if (x <= y)
            --*budget; /* core.py's node() was called and returned at the column check */
        return 1;
    }
    return --*budget != 0;
}

static PyObject *finish(Core *c, PyObject *result, int64_t budget, int depth)
{
    if (depth < 0 || sync_path(c) < 0) {
        Py_XDECREF(result);
        return NULL;
    }
    return Py_BuildValue("NLiO", result, (long long)budget, depth, c->done ? Py_True : Py_False);
}

static PyObject *Core_count(Core *c, PyObject *args)
{
    long long budget, turns = 0;
    int64_t found = 0;
    if (!PyArg_ParseTuple(args, "L|L", &budget, &turns))
        return NULL;
    int64_t left = budget;
    int depth = c->top;
    if (!c->done && root(c, &left))
        depth = walk(c, &left, turns, &found, NULL, 0);
    else if (!c->done && c->level < c->top)
        c->done = 1;
    return finish(c, PyLong_FromLongLong(found), left, depth);
}

static PyObject *Core_solve(Core *c, PyObject *args)
{
    long long budget, turns = 0;
    Py_ssize_t want;
    if (!PyArg_ParseTuple(args, "Ln|L", &budget, &want, &turns))
        return NULL;
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    int64_t left = budget;
    int depth = c->top;
    if (!c->done && root(c, &left))
        depth = walk(c, &left, turns, NULL, out, want < 1 ? 1 : want);
    else if (!c->done && c->level < c->top)
        c->done = 1;
    return finish(c, out, left, depth);
}

static PyMethodDef Core_methods[] = {
    {"count", (PyCFunction)Core_count, METH_VARARGS,
     "count(budget, turns=0) -> (solutions, budget left, depth, done): count on for a budget "
     "of nodes (and at most `turns` loop turns; 0: no limit)."},
    {"solve", (PyCFunction)Core_solve, METH_VARARGS,
     "solve(budget, want, turns=0) -> (solutions, budget left, depth, done): up to `want` "
     "solutions (and at most `turns` loop turns; 0: no limit)."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "alphametic.linear._native.Core",
    .tp_basicsize = sizeof(Core),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A resumable depth-first search over one plan (see native.py).",
    .tp_new = Core_new,
    .tp_dealloc = (destructor)Core_dealloc,
    .tp_methods = Core_methods,
};


/* count_columns(): the solutions of W1 + ... + WN = R counted column by column, units first,
 * up to a cap (the composer's test of one candidate; columns.py is its pure-Python twin).
 * The top column's letters are tried first; then each column's letters not met before are
 * tried on the free digits, and the column's sum and carry fix the result's digit (or check
 * it): the units column's parity and carries prune at once, with nothing built but the
 * columns. After each letter tried, the sum's value so far and what the letters without a
 * digit can still add must be able to cancel (the magnitude the columns below cannot see:
 * with the top letters known it bites from the start). Letters: at most the base (<= 64). */
typedef struct {
    int base, ncols;
    int64_t cap, found;
    uint64_t used, nz;
    int digit[64];
    int keep, kept[64];                 /* keep the first solution's digits? they */
    int *first, *nfresh, *fresh;        /* per column: its letters met first there */
    int *tstart, *nterm, *term;         /* per column: its addend letters ... */
    int64_t *weight;                    /* ... with their multiplicities */
    int *res, *res_new;                 /* per column: the result's letter (-1: none), new? */
    int *solve, *inv;                   /* per column: last new letter solved? its weight's inverse */
    int *before;                        /* per column: letters with a digit before it */
    int bounded;                        /* the values fit int64: the magnitude check runs */
    int64_t s, coef[64];                /* the sum's value so far; each letter's weight in it */
    int64_t low[65], high[65];          /* what the letters from the i-th met on can add */
} Cols;

/* Give letter x the digit d (or take it back: sign -1). */
static inline void cols_set(Cols *k, int x, int64_t d, int sign)
{
    k->used ^= (uint64_t)1 << d;
    k->digit[x] = (int)d;
    k->s += sign * k->coef[x] * d;
}

static void cols_column(Cols *k, int j, int64_t carry);

/* Whether the letters from the i-th met on can still bring the sum's value to 0. */
static inline int cols_reach(const Cols *k, int i)
{
    return k->s + k->low[i] <= 0 && k->s + k->high[i] >= 0;
}

/* The column's sum with the carry: the result's digit and the next carry, then on. */
static void cols_close(Cols *k, int j, int64_t carry)
{
    int64_t v = carry;
    int e, end = k->tstart[j] + k->nterm[j];
    for (e = k->tstart[j]; e < end; e++)
        v += k->weight[e] * k->digit[k->term[e]];
    int64_t r = v % k->base;
    int x = k->res[j];
    v /= k->base;
    if (x < 0) {
        if (r == 0)
            cols_column(k, j + 1, v);
        return;
    }
    if (!k->res_new[j]) {
        if (k->digit[x] == r)
            cols_column(k, j + 1, v);
        return;
    }
    if (k->used >> r & 1 || (r == 0 && k->nz >> x & 1))
        return;
    cols_set(k, x, r, 1);
    cols_column(k, j + 1, v);
    cols_set(k, x, r, -1);
}

/* The column's last new letter when the column's digit is known: one digit makes it hold
 * (its weight is invertible modulo the base), so it is solved instead of tried. */
static void cols_solve(Cols *k, int j, int x, int64_t carry)
{
    int64_t v = carry, w = 0;
    int e, end = k->tstart[j] + k->nterm[j];
    for (e = k->tstart[j]; e < end; e++) {
        if (k->term[e] == x)
            w = k->weight[e];
        else
            v += k->weight[e] * k->digit[k->term[e]];
    }
    int64_t want = k->res[j] < 0 ? 0 : k->digit[k->res[j]];
    int64_t d = pmod((want - v) % k->base * k->inv[j], k->base);
    if (k->used >> d & 1 || (d == 0 && k->nz >> x & 1))
        return;
    cols_set(k, x, d, 1);
    cols_column(k, j + 1, (v + w * d) / k->base);
    cols_set(k, x, d, -1);
}

/* Try the free digits on the column's n-th new letter, then the next one. */
static void cols_pick(Cols *k, int j, int n, int64_t carry)
{
    if (n == k->nfresh[j]) {
        cols_close(k, j, carry);
        return;
    }
    int x = k->fresh[k->first[j] + n], d;
    if (n + 1 == k->nfresh[j] && k->solve[j]) {
        cols_solve(k, j, x, carry);
        return;
    }
    for (d = (int)(k->nz >> x & 1); d < k->base && k->found < k->cap; d++) {
        if (k->used >> d & 1)
            continue;
        cols_set(k, x, d, 1);
        if (!k->bounded || cols_reach(k, k->before[j] + n + 1))
            cols_pick(k, j, n + 1, carry);
        cols_set(k, x, d, -1);
    }
}

static void cols_column(Cols *k, int j, int64_t carry)
{
    if (j == k->ncols) {
        if (carry == 0 && !k->found++ && k->keep)
            memcpy(k->kept, k->digit, sizeof k->kept);
        return;
    }
    if (k->bounded && !cols_reach(k, k->before[j]))
        return; /* the columns above cannot make up for it */
    cols_pick(k, j, 0, carry);
}

/* The local index of a letter, added when new; -1 when it would pass the base. */
static int cols_letter(Py_UCS4 *letters, int *n, int base, Py_UCS4 ch)
{
    int k;
    for (k = 0; k < *n; k++)
        if (letters[k] == ch)
            return k;
    if (*n >= base)
        return -1;
    letters[*n] = ch;
    return (*n)++;
}

/* Each letter's weight in the sum's value (addends +, result -); bounded = 1 unless a value
 * could pass 2**62 (then the magnitude check is left off). */
static void cols_weights(Cols *k, PyObject *addends, PyObject *result, Py_UCS4 *letters,
                         int nletters)
{
    Py_ssize_t nw = PyTuple_GET_SIZE(addends), w, p;
    __int128 limit = (__int128)1 << 62, reach = 0, c[64] = {0};
    int i, n = nletters;
    for (w = 0; w <= nw; w++) {
        PyObject *word = w < nw ? PyTuple_GET_ITEM(addends, w) : result;
        Py_ssize_t len = PyUnicode_GET_LENGTH(word);
        __int128 power = 1;
        for (p = len - 1; p >= 0; p--) {
            int x = cols_letter(letters, &n, k->base, PyUnicode_READ_CHAR(word, p));
            c[x] += w < nw ? power : -power;
            if (c[x] > limit || -c[x] > limit)
                return;
            if (p && (power *= k->base) > limit)
                return;
        }
    }
    for (i = 0; i < nletters; i++) {
        reach += (c[i] < 0 ? -c[i] : c[i]) * (k->base - 1);
        if (reach > limit)
            return;
        k->coef[i] = (int64_t)c[i];
    }
    k->bounded = 1;
}

/* The order letters get digits in (per column its new letters, then its result's letter if
 * new); which columns solve their last new letter; and what the letters from the i-th on can
 * add: the least and the most (digits 0 or 1 up to base - 1, not told apart). */
static void cols_order(Cols *k)
{
    int order[64], n = 0, j, e, f;
    for (j = 0; j < k->ncols; j++) {
        const int *fresh = k->fresh + k->first[j], nf = k->nfresh[j];
        k->before[j] = n;
        for (f = 0; f < nf; f++)
            order[n++] = fresh[f];
        if (k->res_new[j])
            order[n++] = k->res[j];
        k->solve[j] = 0;
        if (nf && k->nterm[j] && !k->res_new[j] && k->res[j] != fresh[nf - 1]) {
            /* Solved: the column's digit (0 past the result, else its letter's, met before)
             * is known when its last new letter comes; one digit of it makes the column hold
             * when its weight has an inverse modulo the base. */
            int x = fresh[nf - 1], inv;
            for (e = k->tstart[j]; k->term[e] != x; e++)
                ;
            for (inv = 1; inv < k->base && (k->weight[e] * inv) % k->base != 1; inv++)
                ;
            k->solve[j] = inv < k->base;
            k->inv[j] = inv;
        }
    }
    k->low[n] = k->high[n] = 0;
    for (e = n - 1; k->bounded && e >= 0; e--) {
        int64_t c = k->coef[order[e]], a = c * (int64_t)(k->nz >> order[e] & 1);
        int64_t b = c * (k->base - 1);
        k->low[e] = k->low[e + 1] + (a < b ? a : b);
        k->high[e] = k->high[e + 1] + (a < b ? b : a);
    }
}

/* Put the first solution's digits into the dict: letter -> digit. */
static int cols_keep(PyObject *solution, const Py_UCS4 *letters, const int *digits, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        PyObject *key = PyUnicode_FromOrdinal((int)letters[i]);
        PyObject *value = key ? PyLong_FromLong(digits[i]) : NULL;
        int bad = value == NULL || PyDict_SetItem(solution, key, value) < 0;
        Py_XDECREF(key);
        Py_XDECREF(value);
        if (bad)
            return -1;
    }
    return 0;
}

static PyObject *count_columns(PyObject *self, PyObject *args)
{
    int base, shortest;
    long long cap;
    PyObject *addends, *result, *solution = Py_None;
    if (!PyArg_ParseTuple(args, "iO!UiL|O", &base, &PyTuple_Type, &addends, &result, &shortest,
                          &cap, &solution))
        return NULL;
    if (solution != Py_None && !PyDict_Check(solution)) {
        PyErr_SetString(PyExc_TypeError, "solution must be a dict or None");
        return NULL;
    }
    if (base < 2 || base > 64) {
        PyErr_SetString(PyExc_ValueError, "base outside 2..64");
        return NULL;
    }
    Py_ssize_t nw = PyTuple_GET_SIZE(addends), w, total = 0, ncols = 0;
    for (w = 0; w <= nw; w++) {
        PyObject *word = w < nw ? PyTuple_GET_ITEM(addends, w) : result;
        if (!PyUnicode_Check(word)) {
            PyErr_SetString(PyExc_TypeError, "words must be str");
            return NULL;
        }
        Py_ssize_t len = PyUnicode_GET_LENGTH(word);
        if (len == 0) {
            PyErr_SetString(PyExc_ValueError, "empty word");
            return NULL;
        }
        total += len;
        if (len > ncols)
            ncols = len;
    }
    /* Every table in one block: per column 10 ints, per addend letter 2 ints and a weight;
     * column slot 0 comes first: the top column's letters, tried before the units (the
     * magnitude check then bites from the start), then slot j + 1 for column j. */
    Py_ssize_t slots = ncols + 1;
    size_t size = sizeof(int) * (size_t)(10 * slots + 2 * total) + sizeof(int64_t) * (size_t)total;
    char *block = PyMem_Malloc(size);
    if (block == NULL)
        return PyErr_NoMemory();
    Cols k;
    memset(&k, 0, sizeof k);
    k.weight = (int64_t *)block;
    k.first = (int *)(k.weight + total);
    k.nfresh = k.first + slots;
    k.tstart = k.nfresh + slots;
    k.nterm = k.tstart + slots;
    k.res = k.nterm + slots;
    k.res_new = k.res + slots;
    k.solve = k.res_new + slots;
    k.inv = k.solve + slots;
    k.before = k.inv + slots;
    k.fresh = k.before + slots;
    k.term = k.fresh + total;
    k.base = base;
    k.ncols = (int)slots;
    k.cap = cap;
    Py_UCS4 letters[64];
    int nletters = 0, j, e;
    uint64_t met = 0;
    long long found = 0;
    int fits = 1, at = 0, fat = 0;
    /* Slot 0: the leading letters of the longest words; no sum of its own. */
    k.res[0] = -1;
    k.tstart[0] = k.nterm[0] = k.first[0] = k.res_new[0] = 0;
    for (w = 0; w <= nw && fits; w++) {
        PyObject *word = w < nw ? PyTuple_GET_ITEM(addends, w) : result;
        if (PyUnicode_GET_LENGTH(word) < ncols)
            continue;
        int x = cols_letter(letters, &nletters, base, PyUnicode_READ_CHAR(word, 0));
        fits = x >= 0;
        if (fits && !(met >> x & 1)) {
            met |= (uint64_t)1 << x;
            k.fresh[fat++] = x;
        }
    }
    k.nfresh[0] = fat;
    for (j = 0; j < ncols && fits; j++) {
        int c = j + 1; /* the column's slot */
        /* The column's addend letters, a letter met twice weighing twice. */
        k.tstart[c] = at;
        for (w = 0; w < nw && fits; w++) {
            PyObject *word = PyTuple_GET_ITEM(addends, w);
            Py_ssize_t len = PyUnicode_GET_LENGTH(word);
            if (len <= j)
                continue;
            int x = cols_letter(letters, &nletters, base, PyUnicode_READ_CHAR(word, len - 1 - j));
            fits = x >= 0;
            for (e = k.tstart[c]; fits && e < at && k.term[e] != x; e++)
                ;
            if (!fits)
                break;
            if (e < at) {
                k.weight[e]++;
                continue;
            }
            k.term[at] = x;
            k.weight[at++] = 1;
        }
        k.nterm[c] = at - k.tstart[c];
        /* Its letters not met in the columns before: tried here. */
        k.first[c] = fat;
        for (e = k.tstart[c]; e < at; e++)
            if (!(met >> k.term[e] & 1)) {
                met |= (uint64_t)1 << k.term[e];
                k.fresh[fat++] = k.term[e];
            }
        k.nfresh[c] = fat - k.first[c];
        Py_ssize_t rlen = PyUnicode_GET_LENGTH(result);
        k.res[c] = -1;
        k.res_new[c] = 0; /* a column past the result's length has none */
        if (fits && rlen > j) {
            int x = cols_letter(letters, &nletters, base, PyUnicode_READ_CHAR(result, rlen - 1 - j));
            fits = x >= 0;
            k.res[c] = x;
            k.res_new[c] = fits && !(met >> x & 1);
            if (fits)
                met |= (uint64_t)1 << x;
        }
    }
    if (fits && shortest > 0) {
        /* The leading-zero policy: words of `shortest` letters or more start with no 0. */
        for (w = 0; w <= nw; w++) {
            PyObject *word = w < nw ? PyTuple_GET_ITEM(addends, w) : result;
            if (PyUnicode_GET_LENGTH(word) >= shortest)
                k.nz |= (uint64_t)1 << cols_letter(letters, &nletters, base,
                                                    PyUnicode_READ_CHAR(word, 0));
        }
    }
    if (fits) {
        cols_weights(&k, addends, result, letters, nletters);
        cols_order(&k);
    }
    if (fits && cap > 0) {
        k.keep = solution != Py_None;
        cols_column(&k, 0, 0);
        found = k.found;
    }
    PyMem_Free(block);
    if (found && solution != Py_None && cols_keep(solution, letters, k.kept, nletters) < 0)
        return NULL;
    return PyLong_FromLongLong(found);
}

/* pattern_key(): a sum's letter pattern (compose/patterns.py's pattern(), its twin): the
 * result's letters, then the addends longest first (equal lengths by their shape beside the
 * result's letters: a result letter as its number there, any other as -1, -2, ... in its
 * word's order of first appearance; then as given), each letter as the order of its first
 * appearance, each addend after a PATTERN_GAP byte; and the letters in that order. None when
 * the sum has more than PATTERN_LETTERS letters. */
#define PATTERN_GAP 255
#define PATTERN_LETTERS 64
static int pattern_number(Py_UCS4 *letters, int *n, Py_UCS4 ch)
{
    int k;
    for (k = 0; k < *n; k++)
        if (letters[k] == ch)
            return k;
    if (*n < PATTERN_LETTERS)
        letters[*n] = ch;
    return (*n)++;
}

/* Compare two addends of one length by their shapes beside the result's first `nres` letters. */
static int pattern_shape_cmp(PyObject *a, PyObject *b, const Py_UCS4 *letters, int nres)
{
    Py_ssize_t len = PyUnicode_GET_LENGTH(a), p;
    Py_UCS4 own_a[PATTERN_LETTERS], own_b[PATTERN_LETTERS];
    int na = 0, nb = 0, k;
    for (p = 0; p < len; p++) {
        Py_UCS4 ca = PyUnicode_READ_CHAR(a, p), cb = PyUnicode_READ_CHAR(b, p);
        int sa = -1, sb = -1;
        for (k = 0; k < nres; k++) {
            if (letters[k] == ca && sa < 0)
                sa = k;
            if (letters[k] == cb && sb < 0)
                sb = k;
        }
        if (sa < 0) {
            int o = pattern_number(own_a, &na, ca);
            sa = -1 - o;
        }
        if (sb < 0) {
            int o = pattern_number(own_b, &nb, cb);
            sb = -1 - o;
        }
        if (sa != sb)
            return sa < sb ? -1 : 1;
    }
    return 0;
}

static PyObject *pattern_key(PyObject *self, PyObject *args)
{
    PyObject *addends, *result;
    if (!PyArg_ParseTuple(args, "O!U", &PyTuple_Type, &addends, &result))
        return NULL;
    Py_ssize_t nw = PyTuple_GET_SIZE(addends), w, total = PyUnicode_GET_LENGTH(result), p;
    for (w = 0; w < nw; w++) {
        PyObject *word = PyTuple_GET_ITEM(addends, w);
        if (!PyUnicode_Check(word)) {
            PyErr_SetString(PyExc_TypeError, "words must be str");
            return NULL;
        }
        total += PyUnicode_GET_LENGTH(word) + 1;
    }
    unsigned char small[256], *buf = small;
    Py_ssize_t *order, small_order[16];
    order = nw <= 16 ? small_order : PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)nw);
    if (total > (Py_ssize_t)sizeof small)
        buf = PyMem_Malloc((size_t)total);
    PyObject *out = NULL;
    if (buf == NULL || order == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_UCS4 letters[PATTERN_LETTERS];
    int n = 0, nres;
    Py_ssize_t at = 0, rlen = PyUnicode_GET_LENGTH(result);
    for (p = 0; p < rlen; p++)
        buf[at++] = (unsigned char)pattern_number(letters, &n, PyUnicode_READ_CHAR(result, p));
    nres = n;
    /* The addends longest first, equal lengths by shape, then as given (a stable sort). */
    for (w = 0; w < nw; w++) {
        PyObject *word = PyTuple_GET_ITEM(addends, w);
        Py_ssize_t len = PyUnicode_GET_LENGTH(word), i = w;
        while (i > 0) {
            PyObject *prev = PyTuple_GET_ITEM(addends, order[i - 1]);
            Py_ssize_t plen = PyUnicode_GET_LENGTH(prev);
            if (plen > len || (plen == len && pattern_shape_cmp(prev, word, letters, nres) <= 0))
                break;
            order[i] = order[i - 1];
            i--;
        }
        order[i] = w;
    }
    for (w = 0; w < nw && n <= PATTERN_LETTERS; w++) {
        PyObject *word = PyTuple_GET_ITEM(addends, order[w]);
        Py_ssize_t len = PyUnicode_GET_LENGTH(word);
        buf[at++] = PATTERN_GAP;
        for (p = 0; p < len && n <= PATTERN_LETTERS; p++)
            buf[at++] = (unsigned char)pattern_number(letters, &n, PyUnicode_READ_CHAR(word, p));
    }
    if (n > PATTERN_LETTERS) {
        out = Py_NewRef(Py_None);
        goto done;
    }
    PyObject *key = PyBytes_FromStringAndSize((const char *)buf, at);
    PyObject *names = key ? PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, letters, n) : NULL;
    if (names != NULL)
        out = PyTuple_Pack(2, key, names);
    Py_XDECREF(key);
    Py_XDECREF(names);
done:
    if (buf != small)
        PyMem_Free(buf);
    if (order != small_order)
        PyMem_Free(order);
    return out;
}

static PyMethodDef module_methods[] = {
    {"count_columns", count_columns, METH_VARARGS,
     "count_columns(base, addends, result, shortest, cap, solution=None) -> solutions of the "
     "sum of the addends = result, counted up to cap (0 when its letters outnumber the base's "
     "digits); words of `shortest` letters or more (0: none) start with no 0. A dict given as "
     "solution gets the first solution found (letter -> digit)."},
    {"pattern_key", pattern_key, METH_VARARGS,
     "pattern_key(addends, result) -> (key, letters): the sum's letter pattern as bytes and its "
     "letters in the key's order (compose.patterns.pattern's twin); None past 64 letters."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "alphametic.linear._native",
    "The coefficient engine's search loop in C (the twin of core.py and counting.py).", -1,
    module_methods,
};

PyMODINIT_FUNC PyInit__native(void)
{
    if (PyType_Ready(&CoreType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "Core", (PyObject *)&CoreType) < 0) {
        Py_DECREF(&CoreType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
