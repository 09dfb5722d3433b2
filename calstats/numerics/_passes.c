/* One-pass reductions in R's arithmetic (long double where R accumulates in long double):
 * the passes of the metrics and the inner products of the logistic fits. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyMethodDef passes_methods[] = {
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef passes_module = {
    PyModuleDef_HEAD_INIT, "_passes",
    "R's one-pass reductions in C (see calstats.numerics.passes).",
    -1, passes_methods,
};

PyMODINIT_FUNC PyInit__passes(void)
{
    return PyModule_Create(&passes_module);
}
