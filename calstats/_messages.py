"""The message table: the texts that R's arithmetic, R's random stream and the model ports
raise or warn, written once.

:mod:`calstats._validate` owns every message of calstats: its validators word what a user
can get wrong at the boundary, and this table holds the texts of the layers below it (the
arithmetic of ``numerics``, ``rng``, the R model functions of ``ports``, and the base
modules), which cannot import the validators. Most are R's own words (R's
``conditionMessage()``, word for word: the tests and R's fixtures compare them); a few are
calstats' own, for checks of arrays that R receives already validated (they say so). A
front end never reads this table: it calls a validator of :mod:`calstats._validate`, which
may read it for a text that a port raises too.

A text with fields is a :meth:`str.format` template; the fields are named after what they
hold. Errors are raised with :func:`calstats._errors.fail`, warnings given with
:func:`calstats._errors.warn`.
"""

# --------------------------------------------------------------------------------------
# R's evaluator and coercions, shared by several functions

#: R's warning of a function that returns NaN for an argument outside its domain.
NANS_PRODUCED = "NaNs produced"
#: R's warning of a random-number function given invalid parameters.
NAS_PRODUCED = "NAs produced"
#: R's ``.C``/``.Fortran`` refusal of a non-finite argument.
FOREIGN_NONFINITE = "NA/NaN/Inf in foreign function call (arg {arg})"
#: R's error of ``if (NA)``.
NA_CONDITION = "missing value where TRUE/FALSE needed"
#: R's arithmetic on a non-number.
NON_NUMERIC_OPERATOR = "non-numeric argument to binary operator"
#: R's ``x[i] <- value`` with a value of the wrong length.
REPLACEMENT_LENGTH = "number of items to replace is not a multiple of replacement length"
#: R's ``min()``/``max()`` of nothing.
MIN_EMPTY = "no non-missing arguments to min; returning Inf"
MAX_EMPTY = "no non-missing arguments to max; returning -Inf"
#: R's ``as.integer`` outside the integer range, of a string that is not a number, of a complex.
COERCE_INTEGER_RANGE = "NAs introduced by coercion to integer range"
COERCE_NA = "NAs introduced by coercion"
COERCE_IMAGINARY = "imaginary parts discarded in coercion"
#: calstats' own: a vector argument of an arithmetic helper that is not numeric.
ARGUMENT_NUMERIC = "Argument `{arg}` must be numeric."

# --------------------------------------------------------------------------------------
# numerics: optimize (Brent_fmin), optim's vmmin, quantile, approx, spline, eigen

OPTIMIZE_FUNCTION_VALUE = "invalid function value in 'optimize'"
OPTIMIZE_NONFINITE = "NA/Inf replaced by maximum positive value"
OPTIMIZE_XMIN = "invalid 'xmin' value"
OPTIMIZE_XMAX = "invalid 'xmax' value"
OPTIMIZE_INTERVAL = "'xmin' not less than 'xmax'"
OPTIMIZE_TOL = "invalid 'tol' value"
OPTIM_NONFINITE = "non-finite value supplied by optim"
OPTIM_INITIAL = "initial value in 'vmmin' is not finite"
OPTIM_GRADIENT_LENGTH = "gradient in optim evaluated to length {length} not {n}"
#: calstats' own: a status of the C vmmin that R's has not.
OPTIM_STATUS = "vmmin failed (status {status})"
QUANTILE_PROBS = "'probs' outside [0,1]"
APPROX_TWO_VALUES = "need at least two non-NA values to interpolate"
SPLINE_NO_POINTS = "zero non-NA points"
REGULARIZE_TIES = "collapsing to unique 'x' values"
EIGEN_NONFINITE = "infinite or missing values in 'x'"
#: calstats' own: the import-time notice that the C core is missing.
NUMPY_ENGINE = (
    "calstats runs on its NumPy backend: its C core is not compiled ({missing}); the numbers are the same, "
    "slower, and engine='fast' runs R's arithmetic. For the compiled engine install a binary wheel or "
    "reinstall with a C compiler and the Python headers: pip install --force-reinstall --no-cache-dir calstats"
)
# calstats' own checks of the arrays their callers prepare: the compiled cores' wrappers (a
# ValueError, as NumPy's), approx_constant, findInterval, quantile(type = 8)
CORE_U_CODES = "U and codes disagree"
CORE_Z_CODES = "Z and codes disagree"
CORE_Z_MATRIX = "Z must be a matrix"
CORE_CODES_RANGE = "class codes outside 1..k"
CORE_MASK_SIZE = "mask has the wrong size"
CORE_WEIGHTS_LENGTH = "weights has the wrong length"
CORE_PAR_LENGTH = "par has the wrong length"
CORE_START_LENGTH = "start has the wrong length"
CORE_PROBS_LAYOUT = "probs must be a C-ordered float64 n x k array"
FAST_GRAD_LAYOUT = "grad must be a contiguous float64 array of length 2 k"
APPROX_CONSTANT_LENGTHS = "approx_constant: x_knots and y_knots differ in length"
FIND_INTERVAL_BREAKS = "find_interval: need at least two breaks"
FIND_INTERVAL_NAN = "find_interval: v must not be NaN"
QUANTILE8_EMPTY = "quantile_type8: x is empty"
QUANTILE8_NAN = "quantile_type8: x must not contain NaN"

# --------------------------------------------------------------------------------------
# rng: set.seed, .Random.seed, sample, runif/rnorm, MASS::mvrnorm

SEED_INVALID = "supplied seed is not a valid integer"
RANDOM_SEED_LENGTH = "'.Random.seed' has wrong length or type for Mersenne-Twister"
RANDOM_SEED_KIND = ("'.Random.seed[1]' is not a valid integer for the default kinds "
                    "(Mersenne-Twister, Inversion, Rejection)")
SAMPLE_FIRST = "invalid first argument"
SAMPLE_N_LENGTH = "length(n) == 1L is not TRUE"
SAMPLE_SIZE = "invalid 'size' argument"
SAMPLE_REPLACE = "invalid 'replace' argument"
SAMPLE_TOO_LARGE = "cannot take a sample larger than the population when 'replace = FALSE'"
VECTOR_SIZE_NA = "vector size cannot be NA/NaN"
VECTOR_SIZE_INFINITE = "vector size cannot be infinite"
VECTOR_SIZE_TOO_LARGE = "vector size specified is too large"
DRAWS_INVALID = "invalid arguments"
MVRNORM_INCOMPATIBLE = "incompatible arguments"
MVRNORM_NOT_PD = "'Sigma' is not positive definite"
#: calstats' own: a saved stream state is a value (an AttributeError, as a frozen dataclass's).
RNG_STATE_IMMUTABLE = "RNGState is immutable"

# --------------------------------------------------------------------------------------
# ports/stats: glm.fit, profile (MASS), loess (simpleLoess and its Fortran), splines

GLM_Y_RANGE = "y values must be 0 <= y <= 1"
GLM_NON_INTEGER = "non-integer #successes in a binomial glm!"
GLM_NONFINITE_COEF = "non-finite coefficients at iteration {iteration}"
GLM_NOT_CONVERGED = "glm.fit: algorithm did not converge"
GLM_BOUNDARY = "glm.fit: algorithm stopped at boundary value"
GLM_FITTED_01 = "glm.fit: fitted probabilities numerically 0 or 1 occurred"
PROFILE_BETTER_SOLUTION = "profiling has found a better solution, so original fit had not converged"

LOESS_SPAN_TOO_SMALL = "span is too small"
LOESS_FEW_DATA = "span too small.   fewer data values than degrees of freedom."
LOESS_TRACE_BELOW_K = "Chernobyl! trL<k {trace}"
LOESS_TRACE_ABOVE_N = "Chernobyl! trL>n {trace}"
LOESS_PSEUDOINVERSE = "pseudoinverse used at {at}"
LOESS_NEIGHBORHOOD_RADIUS = "neighborhood radius {radius}"
LOESS_RCOND = "reciprocal condition number  {rcond}"
LOESS_OTHER_SINGULARITIES = "There are other near singularities as well. {rho}"
LOESS_ZERO_WIDTH = "zero-width neighborhood. make span bigger"
LOESS_AT = "at  {at}"
LOESS_RADIUS = "radius  {radius}"
LOESS_ON_BOUNDARY = "all data on boundary of neighborhood. make span bigger"
LOESS_VERTEX_DEGREE = "degree must be at least 1 for vertex influence matrix"

SPLINES_DEGREE = "'degree' must be integer >= 1"
SPLINES_DF_SMALL = "'df' was too small; have used {df}"
SPLINES_BEYOND = "some 'x' values beyond boundary knots may cause ill-conditioned bases"
SPLINES_FEW_KNOTS = "must have at least 'ord' knots"
SPLINES_DERIVS_LONG = "length of 'derivs' is larger than length of 'x'"
SPLINES_DERIVS_EMPTY = "empty 'derivs'"
SPLINES_ORD = "'ord' must be positive integer, at most the number of knots"
SPLINES_NEED_KNOTS = "need at least 2*ord -1 (={count}) knots"
SPLINES_RANGE = "the 'x' data must be in the range {lower:g} to {upper:g} unless you set 'outer.ok = TRUE'"
SPLINES_DERIV_ORD = "derivs = {deriv} >= ord = {ord}, but should be in {{0,..,ord-1}}"
SPLINES_DERIV_ORD_AT = "derivs[{i}] = {deriv} >= ord = {ord}, but should be in {{0,..,ord-1}}"
SPLINES_QR_ROWS = "'qr' and 'y' must have the same number of rows"
SPLINES_NUMERIC = "'{name}' must be numeric"
SPLINES_BOUNDARY = "'Boundary.knots' must be two non-missing numbers"
# calstats' own checks of glm_binomial's arrays (R receives them from model.frame; colnames: COXPH_COLNAMES)
GLM_X_SHAPE = "X must be an n x p matrix with n = len(y)"
GLM_OFFSET_LENGTH = "offset must have length len(y)"
# calstats' own checks of isoreg's y (R's isoreg stops on NA; its C sums in double)
ISOREG_NONFINITE = "isoreg: y must be finite"
ISOREG_OVERFLOW = "isoreg: the cumulative sum of y overflows"

# --------------------------------------------------------------------------------------
# ports/survival: coxph, coxph.fit, survfit (Kaplan-Meier)

COXPH_NO_OBSERVATIONS = "No (non-missing) observations"
COXPH_INFINITE_X = "data contains an infinite predictor"
COXPH_NOT_CONVERGED = "Ran out of iterations and did not converge"
COXPH_INFINITE_COEF = "one or more coefficients may be infinite"
COXPH_LOGLIK_CONVERGED = "Loglik converged before variable  {vars} ; coefficient may be infinite. "
COXPH_ITERATIONS = "Invalid value for iterations"
# calstats' own checks of the arrays (R receives them already validated by Surv/model.frame)
COXPH_NUMERIC = "{what} must be numeric"
COXPH_MISSING = "{what} must not contain missing values"
COXPH_SHAPE = "X must be a vector or a matrix with one row per observation"
COXPH_LENGTH = "time, status and X must have the same number of observations"
COXPH_STATUS = "status must contain only 0 (censored) and 1 (event)"
COXPH_TIME = "time must be finite"
#: also glm_binomial's (ports/stats/glm.py)
COXPH_COLNAMES = "colnames must name every column of X"
COXPH_NEWX = "Xnew must have {p} columns, one per coefficient"
COXPH_T0 = "t0 must be a single time or one time per row of Xnew"

KM_EMPTY = "data set has no non-missing observations"
# calstats' own checks of the arrays
KM_TIME = "Argument `time` must be a numeric vector of finite survival times."
KM_EVENT = "Argument `event` must contain only `0` (censored) and `1` (event)."
KM_LENGTH = "Arguments `time`, `event` (and `weights`) must have the same length."
KM_WEIGHTS = "Argument `weights` must contain finite, non-negative case weights."
KM_AT = "Argument `at` must contain finite times."

# --------------------------------------------------------------------------------------
# ports/mgcv: gam (binomial), gam's cox.ph family, the smooth constructors

GAM_K_INCREASED = "basis dimension, k, increased to minimum possible"
GAM_PIRLS_NOT_CONVERGED = "gam.fit3 algorithm did not converge"
GAM_STEP_FAILURE = "Fitting terminated with step failure - check results carefully"
GAM_ITERATION_LIMIT = "Iteration limit reached without full convergence - check carefully"
GAM_TP_UNIQUE = ("A term has fewer unique covariate combinations than specified maximum "
                 "degrees of freedom")
GAM_CR_UNIQUE = "x has insufficient unique values to support {k} knots: reduce k."
# calstats' own checks of the arguments and arrays
GAM_BS = "bs must be \"tp\" or \"cr\""
GAM_METHOD = "method must be \"GCV.Cp\" or \"REML\""
GAM_K = "k must be a whole number"
GAM_XY = "x and y must be finite numeric vectors of the same length"
GAM_Y01 = "y must contain only 0 and 1"
GAM_NOT_CONVERGED = "penalized IRLS did not converge"
GAM_COX_DATA = "time, status and x must be finite numeric vectors of the same length"
GAM_COX_STATUS = "status must contain only 0 and 1, with at least one event"
GAM_COX_NEWDATA = "t0 and xnew must be finite numeric values of compatible lengths"
GAM_COX_NOT_CONVERGED = "penalized Newton iteration did not converge"
#: calstats' own: LAPACK's dstedc failing in mgcv_trisymeig (an ArithmeticError; not reached with finite input).
DSTEDC_FAILED = "dstedc failed"

# --------------------------------------------------------------------------------------
# ports/vgam: vglm(family = multinomial)

VGLM_RANK = "vglm() only handles full-rank models (currently)"
VGLM_PARAMETERS = "There are {parameters} parameters but only {observations} observations"
VGLM_NOT_CONVERGED = "convergence not obtained in {maxit} IRLS iterations"
VGLM_WZ = ("{count} diagonal elements of the working weights variable 'wz' have been replaced by "
           "1.819e-12")
VGLM_FITTED_01 = "fitted probabilities numerically 0 or 1 occurred"
VGLM_FITTED_CLOSE = "fitted values close to 0 or 1"
VGLM_HALF_STEP = "iterations terminated because half-step sizes are very small"
VGLM_HALF_STEP_CONVERGED = ("some quantities such as z, residuals, SEs may be inaccurate due to convergence at a "
                            "half-step")

# --------------------------------------------------------------------------------------
# ports/hmisc: rcspline.eval, cut2

RCS_FEW = "knots not specified, and < 6 non-missing observations"
RCS_NK = "nk must be >= 3"
RCS_UNIQUE = "fewer than 3 unique knots"
RCS_KNOTS_SET = "{nk} knots requested with {unique} unique values of x.  knots set to {interior} interior values."
RCS_ALTERNATE = "could not obtain {nk} interior knots with default algorithm.\n Used alternate algorithm to obtain {nu} knots"
CUT2_G = "g must be >=1, m must be positive"

# --------------------------------------------------------------------------------------
# ports/rms: predab.resample, the design of lrm's formula

PREDAB_CV_GROUPS = "B > n/2"
PREDAB_632 = "not every observation omitted at least once in bootstrap samples. Re--run with larger B"
PREDAB_INTERCEPTS = ("A training sample has a different number of intercepts ({ni}) than the original model fit "
                     "({ns}). You probably fit an ordinal model with sparse cells and a re-sample did not select at "
                     "least one observation for each value of Y.")
RMS_POL_ORDER = "order for polynomial must be 2,3,..."
# calstats' own: the formula's terms, which rms reads with R's model.frame
RMS_MAIN_EFFECTS = "an interaction needs the main effects of its variables in the model: add {missing} to the formula"
RMS_NOT_NUMERIC = "{what} is not numeric"
RMS_MISSING = "missing values in `{name}`: lrm needs complete rows (drop them first)"
RMS_INFINITE = "infinite values in `{name}`"
RMS_NEW_LEVEL = "variable {name} has a level not in the fit: {level!r}"
RMS_NOT_FOUND = "variable not found in data: {err}"
RMS_TERM_FAILED = "could not evaluate the term `{expr}`: {err}"
RMS_UNSUPPORTED = "the rms term {fn}() is not supported; use rcs(), pol(), factors or interactions"
RMS_MULTI_COLUMN = "the term `{expr}` gives {k} columns; lrm takes one column per plain term"
RMS_FORMULA = "`formula` must be a string with a response: \"y ~ x1 + x2\""
RMS_PARSE = "could not parse the formula: {err}"
RMS_ONE_RESPONSE = "the formula needs exactly one response on the left of `~`"
RMS_NO_PREDICTOR = "lrm needs at least one predictor on the right of `~`"

# --------------------------------------------------------------------------------------
# base modules: options, progress, array conversion, the notes of CalstatsError

OPTION_UNKNOWN = "unknown option {name!r}; known options: {known}"
OPTION_ENGINE = "option 'engine' must be one of {engines}, not {value!r}"
PROGRESS_ARGUMENT = "Argument `progress` must be `True`, `False` or `None`."
DEVICE = ("Argument `{arg}` lies on a device NumPy cannot read ({device}) and cannot be copied to the CPU "
          "through DLPack; move it to the CPU first (e.g. `np.asarray(...)` in its own library).")
#: calstats' own: a Factor given a level twice (a ValueError).
FACTOR_LEVELS_DISTINCT = "factor levels must be distinct"
#: A plot without matplotlib, the optional extra (an ImportError); ``what`` e.g. "CorpDiagram.plot()".
NEEDS_MATPLOTLIB = "{what} needs matplotlib: pip install 'calstats[plot]' (or pip install matplotlib)"
#: An R record built with other fields than its class declares (a TypeError, as a call with wrong keywords).
ROBJECT_FIELDS = "{cls}: missing {missing}, unexpected {extra}"

#: The Python way out of R's messages written for R's inputs: ``(text in R's message, note)``;
#: :class:`calstats.CalstatsError` attaches the note of the first text its message contains.
PYTHON_NOTES = (
    ("must start at `1`",
     "scikit-learn's 0-based labels: pass `y + 1`, or `pd.Categorical(y)` (its categories name the "
     "columns, in order)."),
    ("must be a factor or a vector of integer class codes",
     "string labels: pass `pd.Categorical(y, categories=[...])` with the categories in column order, "
     "or use the formula API (calstats.formula.api), which matches labels to column names."),
    ("must contain integer class codes or a factor",
     "class codes are R's 1-based integers; for labels 0..K-1 pass `y + 1`, for strings "
     "`pd.Categorical(y, categories=[...])` in column order."),
    ("NaN's not allowed if 'na.rm' is FALSE",
     "pass `na_rm=True` to leave out the rows with a missing value."),
    ("binary labels `0` and `1`",
     "binary string or categorical labels: pass `(y == positive).astype(int)`; the formula API and the "
     "command line take `positive=` / `--positive`."),
)
