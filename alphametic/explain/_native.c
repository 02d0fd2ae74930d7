/* The explanations' column walks in C: the optional twins of columns.py's _exact and
 * remainders.py's _mod_walk.
 *
 * Each walks the same tree as its Python twin: letters in column order, digits ascending,
 * the same interval cut, the same link checks and the same early stop, so it returns the same
 * support masks and carries and counts the same nodes (the explanation's clock). native.py
 * sends only what fits: at most MAXN letters, digits below 64, values far inside int64.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#define MAXN 64
#define MAXC 64 /* carries in or out */

typedef struct {
    int n, nin, nout, nlinks;
    int64_t base, low, high;
    int64_t coef[MAXN], low_rest[MAXN + 1], high_rest[MAXN + 1];
    uint64_t mask[MAXN], support[MAXN];
    int64_t cin[MAXC], cout[MAXC];
    int seen_in[MAXC], seen_out[MAXC], nseen_in, nseen_out;
    int li[MAXN * MAXN], lj[MAXN * MAXN]; /* links: digit li == digit lj + ld */
    int64_t ld[MAXN * MAXN];
    int lstart[MAXN + 1];                 /* links of letter i: lstart[i] .. lstart[i + 1] */
    int path[MAXN];
    uint64_t visits;
} Exact;

static int exact_full(const Exact *e)
{
    if (e->nseen_in != e->nin || e->nseen_out != e->nout)
        return 0;
    for (int j = 0; j < e->n; j++)
        if (e->support[j] != e->mask[j])
            return 0;
    return 1;
}

/* One node of columns.py's walk(i, total, used): 1 once every value is known to be used. */
static int exact_walk(Exact *e, int i, int64_t total, uint64_t used)
{
    e->visits++;
    if (total + e->low_rest[i] > e->high || total + e->high_rest[i] < e->low)
        return 0;
    if (i == e->n) {
        int fits = 0;
        for (int a = 0; a < e->nin; a++) {
            int64_t v = total + e->cin[a];
            if (v % e->base != 0)
                continue;
            int64_t q = v / e->base; /* exact: Python's // agrees */
            int b;
            for (b = 0; b < e->nout; b++)
                if (e->cout[b] == q)
                    break;
            if (b == e->nout)
                continue;
            if (!e->seen_in[a]) {
                e->seen_in[a] = 1;
                e->nseen_in++;
            }
            if (!e->seen_out[b]) {
                e->seen_out[b] = 1;
                e->nseen_out++;
            }
            fits = 1;
        }
        if (fits) {
            for (int j = 0; j < e->n; j++)
                e->support[j] |= (uint64_t)1 << e->path[j];
            return exact_full(e);
        }
        return 0;
    }
    uint64_t m = e->mask[i];
    while (m) {
        int digit = __builtin_ctzll(m);
        m &= m - 1;
        if (used >> digit & 1)
            continue;
        e->path[i] = digit;
        int bad = 0;
        for (int k = e->lstart[i]; k < e->lstart[i + 1]; k++)
            if (digit != e->path[e->lj[k]] + e->ld[k]) {
                bad = 1;
                break;
            }
        if (bad)
            continue;
        if (exact_walk(e, i + 1, total + e->coef[i] * digit, used | (uint64_t)1 << digit))
            return 1;
    }
    return 0;
}

static int read_ints(PyObject *seq, int64_t *out, int cap, int *count, const char *what)
{
    PyObject *fast = PySequence_Fast(seq, what);
    if (fast == NULL)
        return -1;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(fast);
    if (len > cap) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "%s: too many values", what);
        return -1;
    }
    for (Py_ssize_t k = 0; k < len; k++) {
        long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fast, k));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        out[k] = v;
    }
    *count = (int)len;
    Py_DECREF(fast);
    return 0;
}

static PyObject *sorted_tuple(const int64_t *values, const int *seen, int count)
{
    int64_t picked[MAXC];
    int k = 0;
    for (int a = 0; a < count; a++) {
        if (!seen[a])
            continue;
        int64_t v = values[a];
        int b = k++;
        while (b > 0 && picked[b - 1] > v) {
            picked[b] = picked[b - 1];
            b--;
        }
        picked[b] = v;
    }
    PyObject *out = PyTuple_New(k);
    if (out == NULL)
        return NULL;
    for (int a = 0; a < k; a++) {
        PyObject *item = PyLong_FromLongLong(picked[a]);
        if (item == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, a, item);
    }
    return out;
}

static PyObject *exact(PyObject *self, PyObject *args)
{
    PyObject *coefs, *masks, *carry_in, *carry_out, *links;
    long long base;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOL", &coefs, &masks, &carry_in, &carry_out, &links, &base))
        return NULL;
    Exact *e = PyMem_Calloc(1, sizeof(Exact));
    if (e == NULL)
        return PyErr_NoMemory();
    PyObject *result = NULL, *fast = NULL, *support = NULL, *ins = NULL, *outs = NULL;
    int nmask = 0;
    e->base = base;
    if (base < 2 || read_ints(coefs, e->coef, MAXN, &e->n, "coefs") < 0)
        goto done;
    if (read_ints(carry_in, e->cin, MAXC, &e->nin, "carry_in") < 0 ||
        read_ints(carry_out, e->cout, MAXC, &e->nout, "carry_out") < 0)
        goto done;
    fast = PySequence_Fast(masks, "masks");
    if (fast == NULL)
        goto done;
    nmask = (int)PySequence_Fast_GET_SIZE(fast);
    if (nmask != e->n || e->nin == 0 || e->nout == 0) {
        PyErr_SetString(PyExc_ValueError, "exact: one mask per coefficient, carries needed");
        goto done;
    }
    for (int i = 0; i < e->n; i++) {
        uint64_t m = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(fast, i));
        if (m == (uint64_t)-1 && PyErr_Occurred())
            goto done;
        if (m == 0) {
            PyErr_SetString(PyExc_ValueError, "exact: an empty mask");
            goto done;
        }
        e->mask[i] = m;
    }
    Py_CLEAR(fast);
    /* the links, grouped by letter in their given order (counting sort, stable) */
    fast = PySequence_Fast(links, "links");
    if (fast == NULL)
        goto done;
    e->nlinks = (int)PySequence_Fast_GET_SIZE(fast);
    if (e->nlinks > MAXN * MAXN) {
        PyErr_SetString(PyExc_ValueError, "exact: too many links");
        goto done;
    }
    {
        int count[MAXN + 1] = {0};
        int *ti = PyMem_Malloc(sizeof(int) * 2 * (e->nlinks + 1));
        int64_t *td = PyMem_Malloc(sizeof(int64_t) * (e->nlinks + 1));
        if (ti == NULL || td == NULL) {
            PyMem_Free(ti);
            PyMem_Free(td);
            PyErr_NoMemory();
            goto done;
        }
        int ok = 1;
        for (int k = 0; k < e->nlinks && ok; k++) {
            int64_t triple[3];
            int got = 0;
            if (read_ints(PySequence_Fast_GET_ITEM(fast, k), triple, 3, &got, "link") < 0)
                ok = 0;
            else if (got != 3 || triple[0] < 0 || triple[0] >= e->n || triple[1] < 0 ||
                     triple[1] >= e->n) {
                PyErr_SetString(PyExc_ValueError, "exact: a link out of the column");
                ok = 0;
            } else {
                ti[2 * k] = (int)triple[0];
                ti[2 * k + 1] = (int)triple[1];
                td[k] = triple[2];
                count[triple[0] + 1]++;
            }
        }
        if (ok) {
            for (int i = 0; i < e->n; i++)
                count[i + 1] += count[i];
            for (int i = 0; i <= e->n; i++)
                e->lstart[i] = count[i];
            for (int k = 0; k < e->nlinks; k++) {
                int at = count[ti[2 * k]]++;
                e->li[at] = ti[2 * k];
                e->lj[at] = ti[2 * k + 1];
                e->ld[at] = td[k];
            }
        }
        PyMem_Free(ti);
        PyMem_Free(td);
        if (!ok)
            goto done;
    }
    Py_CLEAR(fast);
    e->low_rest[e->n] = e->high_rest[e->n] = 0;
    for (int i = e->n - 1; i >= 0; i--) {
        int lo = __builtin_ctzll(e->mask[i]), hi = 63 - __builtin_clzll(e->mask[i]);
        int64_t a = e->coef[i] * lo, b = e->coef[i] * hi;
        e->low_rest[i] = e->low_rest[i + 1] + (a < b ? a : b);
        e->high_rest[i] = e->high_rest[i + 1] + (a < b ? b : a);
    }
    {
        int64_t in_lo = e->cin[0], in_hi = e->cin[0], out_lo = e->cout[0], out_hi = e->cout[0];
        for (int a = 1; a < e->nin; a++) {
            in_lo = e->cin[a] < in_lo ? e->cin[a] : in_lo;
            in_hi = e->cin[a] > in_hi ? e->cin[a] : in_hi;
        }
        for (int b = 1; b < e->nout; b++) {
            out_lo = e->cout[b] < out_lo ? e->cout[b] : out_lo;
            out_hi = e->cout[b] > out_hi ? e->cout[b] : out_hi;
        }
        e->low = base * out_lo - in_hi;
        e->high = base * out_hi - in_lo;
    }
    exact_walk(e, 0, 0, 0);
    support = PyTuple_New(e->n);
    if (support == NULL)
        goto done;
    for (int i = 0; i < e->n; i++) {
        PyObject *item = PyLong_FromUnsignedLongLong(e->support[i]);
        if (item == NULL)
            goto done;
        PyTuple_SET_ITEM(support, i, item);
    }
    ins = sorted_tuple(e->cin, e->seen_in, e->nin);
    outs = sorted_tuple(e->cout, e->seen_out, e->nout);
    if (ins == NULL || outs == NULL)
        goto done;
    result = Py_BuildValue("(OOOK)", support, ins, outs, (unsigned long long)e->visits);
done:
    Py_XDECREF(fast);
    Py_XDECREF(support);
    Py_XDECREF(ins);
    Py_XDECREF(outs);
    PyMem_Free(e);
    return result;
}

typedef struct {
    int n, found;
    int64_t weight[MAXN], target, modulus;
    uint64_t mask[MAXN], support[MAXN];
    int path[MAXN];
} Mod;

/* remainders.py's walk(i, total, used): every assignment, no early stop. */
static void mod_walk(Mod *w, int i, int64_t total, uint64_t used)
{
    if (i == w->n) {
        if ((total - w->target) % w->modulus == 0) {
            w->found = 1;
            for (int j = 0; j < w->n; j++)
                w->support[j] |= (uint64_t)1 << w->path[j];
        }
        return;
    }
    uint64_t m = w->mask[i];
    while (m) {
        int digit = __builtin_ctzll(m);
        m &= m - 1;
        if (used >> digit & 1)
            continue;
        w->path[i] = digit;
        mod_walk(w, i + 1, total + w->weight[i] * digit, used | (uint64_t)1 << digit);
    }
}

static PyObject *mod_support(PyObject *self, PyObject *args)
{
    PyObject *weights, *masks;
    long long target, modulus;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOLL", &weights, &masks, &target, &modulus))
        return NULL;
    Mod w = {0};
    int nmask = 0;
    if (modulus < 1) {
        PyErr_SetString(PyExc_ValueError, "mod_support: modulus must be positive");
        return NULL;
    }
    if (read_ints(weights, w.weight, MAXN, &w.n, "weights") < 0)
        return NULL;
    PyObject *fast = PySequence_Fast(masks, "masks");
    if (fast == NULL)
        return NULL;
    nmask = (int)PySequence_Fast_GET_SIZE(fast);
    if (nmask != w.n) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "mod_support: one mask per weight");
        return NULL;
    }
    for (int i = 0; i < w.n; i++) {
        uint64_t m = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(fast, i));
        if (m == (uint64_t)-1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return NULL;
        }
        w.mask[i] = m;
    }
    Py_DECREF(fast);
    w.target = target;
    w.modulus = modulus;
    mod_walk(&w, 0, 0, 0);
    if (!w.found)
        Py_RETURN_NONE;
    PyObject *out = PyTuple_New(w.n);
    if (out == NULL)
        return NULL;
    for (int i = 0; i < w.n; i++) {
        PyObject *item = PyLong_FromUnsignedLongLong(w.support[i]);
        if (item == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, i, item);
    }
    return out;
}

static PyMethodDef module_methods[] = {
    {"exact", exact, METH_VARARGS,
     "exact(coefs, masks, carry_in, carry_out, links, base) -> (support masks, carries in, "
     "carries out, nodes visited): columns.py's _exact, node for node."},
    {"mod_support", mod_support, METH_VARARGS,
     "mod_support(weights, masks, target, modulus) -> support masks or None: remainders.py's "
     "_mod_walk."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "alphametic.explain._native",
    "The explanations' column walks in C (the twins of columns.py's _exact and remainders.py's "
    "_mod_walk).", -1, module_methods,
};

PyMODINIT_FUNC PyInit__native(void) { return PyModule_Create(&module); }
