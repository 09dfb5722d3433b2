#!/usr/bin/env Rscript
# R references for calstats.clinical.val_prob_ci: CalibrationCurves' val.prob.ci.2
# (CalibrationCurves 3.1.0, github.com/BavoDC/CalibrationCurves, on rms 6.5-0 and R 4.2.2).
#
# CalibrationCurves is not installed on the reference machine (its DESCRIPTION asks for
# rms >= 7 and for packages Debian does not ship: meta, metafor, merTools, pec's friends).
# val.prob.ci.2 itself needs only rms and base R, so its R files are sourced from a source
# checkout; nothing is stubbed. Point CALIBRATIONCURVES_SRC at the checkout (a folder with
# R/ and data/), then run from the repository root:
#   CALIBRATIONCURVES_SRC=/path/to/CalibrationCurves Rscript tools/r-reference/make_calibrationcurves.R
# It writes tests/fixtures/calibrationcurves.json: the testthat cases of
# tests/testthat/test-val.prob.ci.2.R, test-input-edge-cases.R, test-print-methods.R and
# test-auc-nonpara-mw.R that concern val.prob.ci.2 (with their data), the examples of
# man/val.prob.ci.2.Rd, and further inputs (ties, a negative slope, logit input with
# infinite values, n > 5000, missing values). Each case: the inputs (17 significant
# digits), the arguments, R's stats vector, Calibration and Cindex, the flexible curve
# (pl = TRUE), the loess fit behind it (fitted values and predict(se = TRUE) at the data),
# the printed text, R's warnings, or R's error message.
suppressMessages(library(rms))
source("tools/r-reference/fixture_json.R")
library(jsonlite)

src <- Sys.getenv("CALIBRATIONCURVES_SRC")
if (!nzchar(src)) stop("set CALIBRATIONCURVES_SRC to a CalibrationCurves source checkout")
for (f in c("val.prob.ci.2.R", "ci.auc.R", "auc.nonpara.mw.R", "printFunction.R",
            "rcspline.plot.noprint.R", "BT.samples.R"))
  source(file.path(src, "R", f))
load(file.path(src, "data", "traindata.rda"))
load(file.path(src, "data", "testdata.rda"))

J <- json_num_str
pdf(NULL)

cases <- list()

named <- function(v) list(names = names(v), values = J(v))

# evaluate `call_text` (a call of val.prob.ci.2 written as a user would) with `vars`
# bound, and record everything; the data are recorded by the role match.call gives them
vp <- function(id, vars, call_text, note = "") {
  env <- list2env(vars, parent = globalenv())
  cl <- str2lang(call_text)
  mc <- as.list(match.call(val.prob.ci.2, cl))[-1]
  roles <- intersect(c("p", "y", "logit"), names(mc))
  data <- lapply(mc[roles], eval, envir = env)
  args <- lapply(mc[setdiff(names(mc), roles)], eval, envir = env)
  r <- capture_all(tryCatch(eval(cl, env),
                            error = function(e) structure(list(msg = conditionMessage(e)), class = "err")))
  v <- r$value
  case <- list(note = note, call = call_text, args = args, data = lapply(data, J),
               exprs = lapply(mc[roles], function(e) paste(deparse(e), collapse = "")), warnings = I(r$warnings))
  if (inherits(v, "err")) {
    case$error <- v$msg
  } else {
    case$stats <- named(v$stats)
    case$intercept <- J(v$Calibration$Intercept)
    case$slope <- J(v$Calibration$Slope)
    case$cindex <- J(v$Cindex)
    if (!is.null(v$warningMessages)) case$warning_messages <- I(v$warningMessages)
    fc <- v$CalibrationCurves$FlexibleCalibration
    if (!is.null(fc) && is.data.frame(fc)) case$flexible <- lapply(as.list(fc), J)
    if (!is.null(v$CalibrationCurves$LogisticCalibration))
      case$logistic <- lapply(as.list(v$CalibrationCurves$LogisticCalibration), J)
    if (!is.null(v$CalibrationCurves$RCS)) case$rcs <- lapply(as.list(v$CalibrationCurves$RCS), J)
    pr <- capture_all(capture.output(print(v)))
    case$printed <- I(pr$value)
    case$print_warnings <- I(pr$warnings)
    # the loess behind the curve: what val.prob.ci.2 fits, on its sorted, complete data
    if ((is.null(args$smooth) || identical(args$smooth, "loess")) && is.null(args$argzLoess)) {
      p <- if (!is.null(data$p)) data$p else plogis(data$logit)
      y <- data$y
      ok <- !is.na(p + y)
      p <- p[ok]; y <- y[ok]
      if (isTRUE(args$allowPerfectPredictions)) p[p == 0] <- 1e-8
      if (isTRUE(args$allowPerfectPredictions)) p[p == 1] <- 1 - 1e-8
      o <- order(p)
      p <- p[o]; y <- y[o]
      if (length(unique(p)) > 1) {
        lf <- capture_all(loess(y ~ p, degree = 2))$value
        se <- capture_all(predict(lf, type = "fitted", se = TRUE))$value
        case$loess <- list(fitted = J(lf$fitted), s = J(lf$s), se = J(se$se.fit))
      }
    }
  }
  cases[[id]] <<- case
}

# --- man/val.prob.ci.2.Rd: the examples ------------------------------------------------
set.seed(1783)
X      = replicate(4, rnorm(5e2))
p0true = binomial()$linkinv(cbind(1, X) %*% c(0.1, 0.5, 1.2, -0.75, 0.8))
y      = rbinom(5e2, 1, p0true)
Df     = data.frame(y, X)
FitLog = glm(y ~ ., Df, family = binomial)
Xval   = replicate(4, rnorm(5e2))
p0true = binomial()$linkinv(cbind(1, Xval) %*% c(0.1, 0.5, 1.2, -0.75, 0.8))
yval   = rbinom(5e2, 1, p0true)
Pred   = as.vector(binomial()$linkinv(cbind(1, Xval) %*% coef(FitLog)))
man <- list(Pred = Pred, yval = yval)
vp("man_default", man, "val.prob.ci.2(Pred, yval)", "man page: default calibration plot")
vp("man_default_npl", man, "val.prob.ci.2(Pred, yval, pl = FALSE)", "man page data, pl = FALSE")
vp("man_logistic_cal", man,
   "val.prob.ci.2(Pred, yval, CL.smooth = TRUE, logistic.cal = TRUE, lty.log = 2, col.log = 'red', lwd.log = 1.5)",
   "man page: logistic calibration curve")
vp("man_rcs", man, "val.prob.ci.2(Pred, yval, smooth = 'rcs', pl = FALSE)", "man page data, smooth = rcs")
vp("man_none", man, "val.prob.ci.2(Pred, yval, smooth = 'none', pl = FALSE)", "man page data, smooth = none")
vp("man_level90_delong", man, "val.prob.ci.2(Pred, yval, cl.level = 0.9, method.ci = 'delong', pl = FALSE)",
   "cl.level, method.ci")

# --- tests/testthat: test-val.prob.ci.2.R, test-print-methods.R --------------------------
fit <- glm(y ~ ., data = traindata, family = binomial)
d <- list(p = unname(predict(fit, newdata = testdata, type = "response")), y = testdata$y)
td <- list(d = d)
vp("tt_default", td, "val.prob.ci.2(d$p, d$y, pl = FALSE)", "testthat: structure, names, print")
vp("tt_default_pl", td, "val.prob.ci.2(d$p, d$y, pl = TRUE)", "testthat: stats equal with pl = TRUE")
vp("tt_rcs", td, "val.prob.ci.2(d$p, d$y, pl = FALSE, smooth = 'rcs')", "testthat: smooth = rcs")
vp("tt_none", td, "val.prob.ci.2(d$p, d$y, pl = FALSE, smooth = 'none')", "testthat: smooth = none")
vp("tt_level95", td, "val.prob.ci.2(d$p, d$y, pl = FALSE, cl.level = 0.95)", "testthat: cl.level 0.95")
vp("tt_level80", td, "val.prob.ci.2(d$p, d$y, pl = FALSE, cl.level = 0.80)", "testthat: cl.level 0.80")
vp("tt_pepe", td, "val.prob.ci.2(d$p, d$y, pl = FALSE, method.ci = 'pepe')", "testthat: method.ci pepe")
vp("tt_delong", td, "val.prob.ci.2(d$p, d$y, pl = FALSE, method.ci = 'delong')", "testthat: method.ci delong")
vp("tt_logistic_cal", td, "val.prob.ci.2(d$p, d$y, pl = TRUE, logistic.cal = TRUE)", "testthat: logistic.cal")
vp("tt_err_binary", td, "val.prob.ci.2(d$p, d$y + 0.5, pl = FALSE)", "testthat: non-binary y")
vp("tt_err_lengths", td, "val.prob.ci.2(d$p[1:10], d$y, pl = FALSE)", "testthat: lengths")
bad_p <- d$p; bad_p[1] <- 1.5
vp("tt_err_range", list(d = d, bad_p = bad_p), "val.prob.ci.2(bad_p, d$y, pl = FALSE)", "testthat: p outside [0, 1]")
p_perf <- d$p; p_perf[1] <- 0; p_perf[2] <- 1
vp("tt_perfect_allowed", list(d = d, p_perf = p_perf),
   "val.prob.ci.2(p_perf, d$y, pl = FALSE, allowPerfectPredictions = TRUE)", "testthat: 0 and 1 replaced")
p_perf0 <- d$p; p_perf0[1] <- 0
vp("tt_perfect_refused", list(d = d, p_perf = p_perf0),
   "val.prob.ci.2(p_perf, d$y, pl = FALSE, allowPerfectPredictions = FALSE)", "testthat: p = 0 refused")

# --- tests/testthat/test-input-edge-cases.R ---------------------------------------------
set.seed(6174)
y <- rbinom(100, 1, 0.3)
vp("edge_constant", list(p = rep(0.3, 100), y = y), "val.prob.ci.2(p, y, pl = FALSE)", "constant predictions")
set.seed(2847)
y <- rbinom(50, 1, 0.4); p <- runif(50, 0.1, 0.9)
vp("edge_n50", list(p = p, y = y), "val.prob.ci.2(p, y, pl = FALSE)", "small sample (n = 50)")
set.seed(3309)
y <- rbinom(200, 1, 0.5); p <- runif(200, 0.05, 0.95)
vp("edge_logistic_cal", list(p = p, y = y), "val.prob.ci.2(p, y, pl = FALSE, logistic.cal = TRUE)", "logistic.cal")
vp("edge_all_zero", list(p = rep(0, 10), y = c(0, 1, 0, 1, 0, 1, 0, 1, 0, 1)),
   "val.prob.ci.2(p, y, pl = FALSE, allowPerfectPredictions = TRUE)", "all predictions 0")
set.seed(8816)
y <- rbinom(200, 1, 0.5); p <- runif(200, 0.05, 0.95)
vp("edge_knots6", list(p = p, y = y), "val.prob.ci.2(p, y, pl = FALSE, smooth = 'rcs', nr.knots = 6)", "nr.knots = 6")
vp("edge_knots2", list(p = p, y = y), "val.prob.ci.2(p, y, pl = FALSE, smooth = 'rcs', nr.knots = 2)", "nr.knots = 2")
vp("edge_knots3", list(p = p, y = y), "val.prob.ci.2(p, y, pl = FALSE, smooth = 'rcs', nr.knots = 3)", "nr.knots = 3")
set.seed(1543)
y <- rbinom(200, 1, 0.5); p <- runif(200, 0.05, 0.95)
vp("edge_dostats", list(p = p, y = y), "val.prob.ci.2(p, y, pl = FALSE, dostats = FALSE)", "dostats = FALSE")

# --- further inputs ----------------------------------------------------------------------
set.seed(35)
lp <- rnorm(1000, -1, 1.4)
y <- rbinom(1000, 1, plogis(0.7 * lp + 0.3))
vp("risk_ties", list(p = pmin(pmax(round(plogis(lp), 2), 0.01), 0.99), y = y), "val.prob.ci.2(p, y, pl = FALSE)",
   "risks rounded to 0.01 (ties)")
vp("negative_slope", list(p = plogis(-lp), y = y), "val.prob.ci.2(p, y, pl = FALSE)",
   "anti-informative risks: C reversed")
lg <- lp; lg[c(3, 9)] <- c(-Inf, Inf)
vp("logit_inf", list(lg = lg, y = y), "val.prob.ci.2(logit = lg, y = y, pl = FALSE)", "logit input with -Inf and Inf")
pna <- plogis(lp); pna[c(4, 40)] <- NA
vp("missing_p", list(p = pna, y = y), "val.prob.ci.2(p, y, pl = FALSE)", "missing predictions removed")
set.seed(36)
lp6 <- rnorm(6000, -1, 1.2)
vp("n6000", list(p = plogis(lp6), y = rbinom(6000, 1, plogis(lp6))), "val.prob.ci.2(p, y, pl = FALSE)",
   "n > 5000: R's warning and preliminary loess fit")
set.seed(37)
x <- rep(c(0.1, 0.5, 0.9), each = 30)
vp("loess_zero_width", list(p = x, y = rbinom(90, 1, x)),
   "val.prob.ci.2(p, y, pl = FALSE, argzLoess = list(degree = 2, span = 0.3))",
   "loess without a neighbourhood: R's warnings, then approx's error")
set.seed(38)
x <- runif(300, 0.05, 0.95)
vp("loess_span_degree", list(p = x, y = rbinom(300, 1, x^1.3)),
   "val.prob.ci.2(p, y, pl = FALSE, argzLoess = list(degree = 1, span = 0.5))", "argzLoess: degree 1, span 0.5")
x <- rep(c(0.1, 0.5, 0.9), each = 2001)
y3 <- rbinom(length(x), 1, x)
vp("loess_to_rcs", list(p = x, y = y3),
   "val.prob.ci.2(p, y, pl = FALSE, argzLoess = list(degree = 2, span = 0.3))",
   "n > 5000 and a loess that warns: R switches to the spline (which it fits only to plot)")
vp("loess_to_rcs_plot", list(p = x, y = y3),
   "val.prob.ci.2(p, y, pl = TRUE, argzLoess = list(degree = 2, span = 0.3))",
   "the same, plotted: R's spline fails at every number of knots")

# --- tests/testthat/test-auc-nonpara-mw.R: the c-statistic intervals ---------------------
set.seed(4821)
ax <- rnorm(50, mean = 1); ay <- rnorm(50, mean = 0)
auc <- list()
for (m in c("newcombe", "pepe", "delong", "jackknife")) auc[[m]] <- J(auc.nonpara.mw(ax, ay, method = m))
auc_cases <- list(x = J(ax), y = J(ay), results = auc,
                  ties = list(x = J(c(1, 2, 3, 4)), y = J(c(1, 2, 3, 4)), pepe = J(auc.nonpara.mw(c(1, 2, 3, 4), c(1, 2, 3, 4), method = "pepe")),
                              delong = J(auc.nonpara.mw(c(1, 2, 3, 4), c(1, 2, 3, 4), method = "delong"))))

out <- list(cases = cases, auc = auc_cases,
            versions = list(R = as.character(getRversion()), rms = as.character(packageVersion("rms")),
                            CalibrationCurves = read.dcf(file.path(src, "DESCRIPTION"))[1, "Version"]))
writeLines(toJSON(out, auto_unbox = TRUE, json_verbatim = TRUE, null = "null", digits = NA),
           "tests/fixtures/calibrationcurves.json")
cat("wrote tests/fixtures/calibrationcurves.json:", length(cases), "cases\n")
