#!/usr/bin/env Rscript
# R references for decision curve analysis (calstats.clinical.decision) and the
# Kaplan-Meier estimate (calstats.ports.survival.km), R 4.2.2 with survival 3.5-3.
#
# * km: summary(survfit(Surv(time, event) ~ 1, weights = w), times = at, extend = TRUE)$surv
#   and the fit's time and surv, on ties, near-ties (survfit's timefix), censoring tied with
#   events, integer, fractional and zero weights, times at or below 0.
# * decision: dcurves::dca()'s formulas (dcurves 0.5.1, R/test_consequences.R), written out
#   here in base R + survival because dcurves is not installed: risks of exactly 0 / 1 moved
#   by machine epsilon; test-positive means risk >= threshold; binary
#   tp_rate = mean(risk[y == 1] >= t) * pos_rate, fp_rate = mean(risk[y == 0] >= t) *
#   (1 - pos_rate); time to event: the risk among the test-positive is 1 minus the survfit
#   curve at its last time <= horizon (NA when the curve ends before the horizon or starts
#   after it; 0 for nobody test-positive), tp_rate = risk * test_pos_rate,
#   fp_rate = (1 - risk) * test_pos_rate; net_benefit = tp_rate - t / (1 - t) * fp_rate -
#   harm; standardized_net_benefit = net_benefit / pos_rate. With weights (a calstats
#   extension) every count is a sum of weights and survfit gets weights =.
#   The dcurves example data (df_binary, df_surv, df_case_control) are read from the
#   dcurves sources: set DCURVES_DATA to a directory holding their data/*.rda files.
#
# Writes tests/fixtures/decision.json (run from the repository root):
#   DCURVES_DATA=/path/to/dcurves/data Rscript tools/r-reference/make_decision.R
library(survival)
library(jsonlite)

stopifnot(packageVersion("survival") == "3.5.3")
eps <- .Machine$double.eps

# every double with 17 significant digits (jsonlite stops at 15), NA/NaN as strings
J <- function(x) {
  s <- sprintf("%.17g", as.numeric(x))
  s[is.na(x)] <- '"NA"'
  s[is.nan(x)] <- '"NaN"'
  structure(paste0("[", paste(s, collapse = ","), "]"), class = "json")
}
as_json <- function(x) {
  if (is.list(x)) return(lapply(x, as_json))
  if (is.numeric(x) || is.logical(x) && !is.null(x)) return(J(x))
  x
}

# ---- Kaplan-Meier -------------------------------------------------------------------------
km_cases <- list()
add_km <- function(name, time, event, at, w = NULL) {
  fit <- if (is.null(w)) survfit(Surv(time, event) ~ 1) else survfit(Surv(time, event) ~ 1, weights = w)
  s <- summary(fit, times = at, extend = TRUE)
  km_cases[[length(km_cases) + 1]] <<- list(
    name = name, time = time, event = event, weights = w, at = sort(at),
    surv = s$surv, fit_time = fit$time, fit_surv = fit$surv, fit_n_risk = fit$n.risk,
    fit_n_event = fit$n.event)
}

set.seed(11)
t1 <- round(rexp(40, 0.3), 1)  # many ties
e1 <- rbinom(40, 1, 0.7)
add_km("ties", t1, e1, c(0, 0.5, 1, 2, 2.5, 5, 100, -1, t1[1:3]))
t2 <- rexp(30); e2 <- rbinom(30, 1, 0.6)
add_km("continuous", t2, e2, c(quantile(t2, c(0.1, 0.5, 0.9)), max(t2), min(t2) / 2))
add_km("near ties", c(1, 1 + 1e-10, 2, 2 + 1e-9, 3, 3 - 1e-12, 4, 5), c(1, 1, 0, 1, 1, 1, 0, 1),
       c(1, 1 + 1e-10, 2, 3 - 1e-12, 3, 4.5))
add_km("event and censor tied", c(1, 1, 1, 2, 2, 3, 3, 3, 4), c(1, 0, 1, 0, 1, 1, 1, 0, 0), c(0.5, 1, 2, 3, 4, 9))
add_km("all censored", c(3, 1, 2, 5), c(0, 0, 0, 0), c(0, 2, 10))
add_km("all events", c(3, 1, 2, 5, 2), c(1, 1, 1, 1, 1), c(0, 2, 4.9, 5, 10))
add_km("zero and negative times", c(-2, 0, 0, 1, 3, 4), c(1, 1, 0, 1, 0, 1), c(-5, -2, -1, 0, 0.5, 3.5, 9))
add_km("time zero only below", c(0, 1, 2, 2), c(1, 0, 1, 1), c(-1, 0, 1.5, 3))
set.seed(12)
t3 <- round(rexp(60, 0.2), 0); e3 <- rbinom(60, 1, 0.5)
w3 <- sample(0:3, 60, replace = TRUE)
add_km("integer weights", t3, e3, c(0, 1, 3, 7, 12, 30), w3)
w4 <- runif(60, 0, 2); w4[c(3, 9)] <- 0
add_km("fractional weights", t3, e3, c(0, 1, 3, 7, 12, 30), w4)
add_km("one observation", 2, 1, c(1, 2, 3))

# ---- decision curves ----------------------------------------------------------------------
adjust <- function(r) ifelse(r == 0, 0 - eps, ifelse(r == 1, 1 + eps, r))

surv_to_risk <- function(time, event, w, horizon) {
  fit <- if (is.null(w)) survfit(Surv(time, event) ~ 1) else survfit(Surv(time, event) ~ 1, weights = w)
  est <- 1 - fit$surv
  if (max(fit$time) < horizon) return(NA_real_)
  keep <- which(fit$time <= horizon)
  if (length(keep) == 0L) return(NA_real_)
  est[max(keep)]
}

dca_ref <- function(models, y = NULL, thresholds, harm = list(), prevalence = NULL, w = NULL,
                    time = NULL, event = NULL, horizon = NULL) {
  surv <- !is.null(time)
  n <- if (surv) length(time) else length(y)
  if (!is.null(prevalence)) {
    pos_rate <- prevalence
  } else if (surv) {
    pos_rate <- surv_to_risk(time, event, w, horizon)
  } else if (is.null(w)) {
    pos_rate <- unname(table(factor(y == 1, levels = c(FALSE, TRUE)))[2] / length(y))
  } else {
    pos_rate <- sum(w[y == 1]) / sum(w)
  }
  risks <- c(list(all = rep(1, n), none = rep(0, n)), models)
  out <- list()
  for (m in names(risks)) {
    r <- adjust(risks[[m]])
    tp <- fp <- numeric(length(thresholds))
    for (i in seq_along(thresholds)) {
      t <- thresholds[i]
      pos <- r >= t
      if (!surv) {
        if (is.null(w)) {
          tp[i] <- mean(r[y == 1] >= t) * pos_rate
          fp[i] <- mean(r[y == 0] >= t) * (1 - pos_rate)
        } else {
          tp[i] <- sum(w[y == 1 & pos]) / sum(w[y == 1]) * pos_rate
          fp[i] <- sum(w[y == 0 & pos]) / sum(w[y == 0]) * (1 - pos_rate)
        }
      } else {
        rate <- if (is.null(w)) sum(pos) / n else sum(w[pos]) / sum(w)
        risk <- if (!any(pos)) 0 else surv_to_risk(time[pos], event[pos], if (is.null(w)) NULL else w[pos], horizon)
        tp[i] <- risk * rate
        fp[i] <- (1 - risk) * rate
      }
    }
    h <- if (is.null(harm[[m]])) 0 else harm[[m]]
    nb <- tp - thresholds / (1 - thresholds) * fp - h
    out[[m]] <- list(model = m, tp_rate = tp, fp_rate = fp, net_benefit = nb,
                     standardized_net_benefit = nb / pos_rate)
  }
  list(pos_rate = pos_rate, rows = unname(out))
}

dc_cases <- list()
add_dc <- function(name, models, thresholds, ..., y = NULL, time = NULL, event = NULL, horizon = NULL,
                   harm = list(), prevalence = NULL, w = NULL) {
  res <- dca_ref(models, y = y, thresholds = thresholds, harm = harm, prevalence = prevalence, w = w,
                 time = time, event = event, horizon = horizon)
  dc_cases[[length(dc_cases) + 1]] <<- list(
    name = name, models = models, model_names = names(models), y = y, time = time, event = event,
    horizon = horizon, thresholds = thresholds, harm = if (length(harm)) harm else NULL,
    prevalence = prevalence, weights = w, pos_rate = res$pos_rate, rows = res$rows)
}

default_thr <- seq(0, 0.99, by = 0.01)
data_dir <- Sys.getenv("DCURVES_DATA")
stopifnot(nzchar(data_dir))
for (f in c("df_binary", "df_surv", "df_case_control")) load(file.path(data_dir, paste0(f, ".rda")))

add_dc("dcurves df_binary", list(cancerpredmarker = df_binary$cancerpredmarker, famhistory = df_binary$famhistory),
       default_thr, y = as.integer(df_binary$cancer))
add_dc("dcurves df_surv", list(cancerpredmarker = df_surv$cancerpredmarker), default_thr,
       time = df_surv$ttcancer, event = as.integer(df_surv$cancer), horizon = 1)
add_dc("dcurves df_surv 1.5 harm", list(cancerpredmarker = df_surv$cancerpredmarker), (1:50) / 100,
       time = df_surv$ttcancer, event = as.integer(df_surv$cancer), horizon = 1.5,
       harm = list(cancerpredmarker = 0.01))
add_dc("dcurves df_case_control", list(cancerpredmarker = df_case_control$cancerpredmarker), default_thr,
       y = df_case_control$casecontrol, prevalence = 0.15)

set.seed(21)
n <- 200
x <- rnorm(n)
pr <- plogis(x - 1)
yb <- rbinom(n, 1, pr)
rounded <- round(pr, 2)
rounded[1:4] <- c(0, 1, 0, 1)
add_dc("rounded risks, exact 0 and 1, harm", list(a = pr, rounded = rounded), default_thr[-1], y = yb,
       harm = list(a = 0.005, all = 0.001))
wb <- runif(n, 0, 3); wb[5:8] <- 0
add_dc("weighted binary", list(a = pr, rounded = rounded), c(0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.8), y = yb, w = wb)
add_dc("weighted binary integer", list(a = pr), c(0.1, 0.2, 0.3), y = yb, w = as.numeric(sample(0:3, n, TRUE)))
add_dc("binary prevalence 0.3", list(a = pr), c(0.1, 0.25, 0.6), y = yb, prevalence = 0.3)
add_dc("binary no events", list(a = pr[1:20]), c(0.1, 0.5), y = rep(0L, 20))
add_dc("binary all events", list(a = pr[1:20]), c(0.1, 0.5), y = rep(1L, 20))

set.seed(22)
ts <- round(rexp(n, 0.5 + pr), 2)
es <- rbinom(n, 1, 0.8)
add_dc("survival ties", list(a = pr, rounded = rounded), default_thr, time = ts, event = es, horizon = 1)
add_dc("survival late horizon", list(a = pr), seq(0.05, 0.95, by = 0.05), time = ts, event = es,
       horizon = quantile(ts, 0.97, names = FALSE))
early <- min(ts[pr > 0.5]) * 0.999
add_dc("survival early horizon", list(a = pr), seq(0.05, 0.95, by = 0.05), time = ts, event = es, horizon = early)
ws <- runif(n, 0, 2); ws[c(2, 3)] <- 0
add_dc("weighted survival", list(a = pr), c(0, 0.1, 0.2, 0.4, 0.6), time = ts, event = es, horizon = 1.2, w = ws)
add_dc("weighted survival integer", list(a = pr), c(0.1, 0.3), time = ts, event = es, horizon = 1.2,
       w = as.numeric(sample(1:3, n, TRUE)))
add_dc("survival prevalence", list(a = pr), c(0.1, 0.3), time = ts, event = es, horizon = 1, prevalence = 0.4)

out <- list(
  seq_default = default_thr,
  dcurves_tests = list(
    binary_025 = c(-0.1466667, 0.0000000, 0.0640000),
    famhistory_0 = c(0.140, 0, 0.032),
    surv_025 = c(-0.13695058, 0.00000000, 0.05695371),
    case_control_025 = c(-0.13333333, 0.00000000, 0.01495671)),
  km = km_cases, decision = dc_cases)
writeLines(toJSON(as_json(out), auto_unbox = TRUE, null = "null", json_verbatim = TRUE),
           "tests/fixtures/decision.json")
cat("wrote tests/fixtures/decision.json:", length(km_cases), "km cases,", length(dc_cases), "decision cases\n")
