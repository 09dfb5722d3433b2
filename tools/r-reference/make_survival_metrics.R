#!/usr/bin/env Rscript
# R references for calstats.clinical's survival and competing-risk measures (R 4.2.2):
#
# * concordance: survival::concordance(Surv(time, status) ~ risk, timewt, weights, reverse = TRUE)
#   (survival 3.5-3): concordance, var, cvar, count;
# * Score: riskRegression::Score(list(...), Hist(time, status) ~ 1, times, metrics = c("auc",
#   "brier"), summary = "ibs", cause) (riskRegression 2022.11.28): AUC, Brier, their se, lower,
#   upper, IBS, and the model comparisons; R's error when no horizon is within the follow-up;
# * pec::crps(pec(list(m = cbind(1, 1 - risk)), Surv(time, status) ~ 1, times, exact = FALSE,
#   start = 0)) (pec 2022.05.04) and the pec curves;
# * coxph(Surv(time, status) ~ lp): the Cox calibration slope and its variance;
# * cmprsk::cuminc and timepoints (cmprsk 2.2-11): every curve, estimates and variances;
# * plotCalibration(Score(..., plots = "calibration"), method = "quantile", q)$plotFrames;
# * dcurves::dca with a competing event (Surv(time, factor)): dcurves installed from its
#   sources (github ddsjoberg/dcurves, 0.5.1.9000) into a library named by DCURVES_LIB.
#
# Data: rounded times (ties), censorings at event times, tied risks, fractional and
# integer weights, near-ties (survival's timefix), one event, no event, no censoring, three
# causes. Run from the repository root:
#   DCURVES_LIB=/path/to/lib Rscript tools/r-reference/make_survival_metrics.R
# Writes tests/fixtures/survival_metrics.json and tests/fixtures/competing_risks.json.
if (nzchar(Sys.getenv("DCURVES_LIB"))) .libPaths(c(Sys.getenv("DCURVES_LIB"), .libPaths()))
suppressPackageStartupMessages({
  library(survival)
  library(riskRegression)
  library(prodlim)
  library(pec)
  library(cmprsk)
  library(dcurves)
  library(jsonlite)
})
stopifnot(packageVersion("survival") == "3.5.3", packageVersion("riskRegression") == "2022.11.28",
          packageVersion("cmprsk") == "2.2.11", packageVersion("pec") == "2022.5.4")
source("tools/r-reference/fixture_json.R")
J <- json_num_str
err <- function(expr) tryCatch({ expr; NULL }, error = function(e) conditionMessage(e))

# ---- data -------------------------------------------------------------------------------
set.seed(20240611)
mk <- function(n, rate = 0.15, pc = 0.65, digits = 0, rdigits = 2) {
  list(time = round(rexp(n, rate), digits) + 1, status = rbinom(n, 1, pc), risk = round(runif(n), rdigits))
}
data <- list()
data$ties <- mk(60, digits = 0, rdigits = 1)
data$ties$w <- round(runif(60, 0.5, 2), 3)
data$ties$wi <- sample(1:3, 60, replace = TRUE)
data$cont <- list(time = rexp(120, 0.2), status = rbinom(120, 1, 0.7), risk = runif(120))
data$cont$w <- round(runif(120, 0.2, 3), 4)
data$cont$wi <- rep(1, 120)
data$few <- list(time = c(3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8), status = c(0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0),
                 risk = c(0.1, 0.5, 0.2, 0.9, 0.3, 0.3, 0.8, 0.1, 0.6, 0.4, 0.2, 0.7))
data$noevent <- list(time = c(2, 4, 6, 8), status = c(0, 0, 0, 0), risk = c(0.1, 0.4, 0.3, 0.2))
data$nocens <- list(time = round(rexp(50, 0.3), 0) + 1, status = rep(1, 50), risk = round(runif(50), 2))
data$near <- list(time = c(1, 1 + 1e-10, 2, 2 + 1e-9, 3, 3 - 1e-12, 4, 5, 6, 7),
                  status = c(1, 1, 0, 1, 1, 1, 0, 1, 1, 0),
                  risk = c(0.9, 0.8, 0.5, 0.7, 0.6, 0.6, 0.2, 0.4, 0.3, 0.1))
# a survival model with signal (risk increases with the hazard)
lp <- rnorm(200)
tt <- rexp(200, 0.1 * exp(lp)); cc <- runif(200, 0, 15)
data$signal <- list(time = round(pmin(tt, cc), 1) + 0.1, status = as.numeric(tt <= cc),
                    risk = round(1 - exp(-0.1 * 5 * exp(0.8 * lp)), 3), lp = 0.8 * lp)

# ---- concordance --------------------------------------------------------------------------
conc <- list()
for (dn in c("ties", "cont", "few", "noevent", "nocens", "near", "signal")) {
  d <- data[[dn]]
  for (tw in c("n", "S", "S/G", "n/G2", "I")) {
    for (wt in c("none", "w", "wi")) {
      if (wt != "none" && is.null(d[[wt]])) next
      f <- if (wt == "none") concordance(Surv(d$time, d$status) ~ d$risk, timewt = tw, reverse = TRUE)
           else concordance(Surv(d$time, d$status) ~ d$risk, timewt = tw, reverse = TRUE, weights = d[[wt]])
      conc[[length(conc) + 1]] <- list(data = dn, timewt = tw, weights = wt, concordance = J(f$concordance),
                                       var = J(f$var), cvar = J(f$cvar), count = J(f$count),
                                       print = capture.output(print(f)))
    }
  }
}

# ---- Score --------------------------------------------------------------------------------
score_case <- function(id, dn, times, models, cause = NULL, time_var = FALSE) {
  d <- data[[dn]]
  df <- data.frame(time = d$time, status = d$status)
  if (!is.null(cause)) df$event <- d$event
  form <- if (is.null(cause)) Hist(time, status) ~ 1 else Hist(time, event) ~ 1
  times_kept <- sort(unique(times[times <= max(d$time)]))
  objs <- lapply(models, function(m) matrix(m, nrow(df), length(times_kept)))
  if (time_var) objs <- lapply(models, function(m) sapply(seq_along(times_kept), function(k) pmin(1, m * (0.6 + 0.2 * k))))
  msgs <- character(0)
  s <- withCallingHandlers(
    if (is.null(cause)) Score(objs, formula = form, data = df, times = times, metrics = c("auc", "brier"),
                              summary = "ibs")
    else Score(objs, formula = form, data = df, times = times, metrics = c("auc", "brier"), summary = "ibs",
               cause = cause),
    message = function(m) { msgs <<- c(msgs, conditionMessage(m)); invokeRestart("muffleMessage") })
  sp <- suppressMessages(  # without summary = "ibs", for the print (its IBS column is integrated_brier's)
    if (is.null(cause)) Score(objs, formula = form, data = df, times = times, metrics = c("auc", "brier"))
    else Score(objs, formula = form, data = df, times = times, metrics = c("auc", "brier"), cause = cause))
  a <- as.data.frame(s$AUC$score); b <- as.data.frame(s$Brier$score)
  ac <- if (is.null(s$AUC$contrasts)) NULL else as.data.frame(s$AUC$contrasts)
  bc <- if (is.null(s$Brier$contrasts)) NULL else as.data.frame(s$Brier$contrasts)
  out <- list(id = id, data = dn, times = J(times), cause = cause, time_var = time_var,
              models = lapply(objs, function(m) J(c(m))), model_names = names(models), messages = msgs,
              auc = list(model = as.character(a$model), times = J(a$times), AUC = J(a$AUC), se = J(a$se),
                         lower = J(a$lower), upper = J(a$upper)),
              brier = list(model = as.character(b$model), times = J(b$times), Brier = J(b$Brier), se = J(b$se),
                           lower = J(b$lower), upper = J(b$upper), IBS = J(b$IBS)),
              print = capture.output(print(sp)))
  if (!is.null(ac)) out$auc_contrasts <- list(model = as.character(ac$model), reference = as.character(ac$reference),
                                              times = J(ac$times), delta = J(ac$delta.AUC), se = J(ac$se),
                                              lower = J(ac$lower), upper = J(ac$upper), p = J(ac$p))
  if (!is.null(bc)) out$brier_contrasts <- list(model = as.character(bc$model), reference = as.character(bc$reference),
                                                times = J(bc$times), delta = J(bc$delta.Brier), se = J(bc$se),
                                                lower = J(bc$lower), upper = J(bc$upper), p = J(bc$p))
  out
}
scores <- list(
  score_case("ties", "ties", c(3, 5, 8, 12), list(m = data$ties$risk)),
  score_case("ties two models", "ties", c(2, 4, 6), list(a = data$ties$risk, b = round(1 - data$ties$risk^2, 2))),
  score_case("ties beyond follow-up", "ties", c(4, 1000), list(m = data$ties$risk)),
  score_case("continuous", "cont", c(1, 2.5, 5, 7.5), list(m = data$cont$risk), time_var = TRUE),
  score_case("no censoring", "nocens", c(2, 4), list(m = data$nocens$risk)),
  score_case("near ties", "near", c(2, 4.5), list(m = data$near$risk)),
  score_case("signal", "signal", c(2, 5, 8), list(risk = data$signal$risk)),
  score_case("horizon before any event", "signal", c(0.05, 5), list(risk = data$signal$risk))
)
score_errors <- list(beyond = err(Score(list(m = matrix(data$ties$risk, ncol = 1)), formula = Hist(time, status) ~ 1,
                                        data = data.frame(time = data$ties$time, status = data$ties$status),
                                        times = 1e6, metrics = "brier")))

# ---- pec crps -----------------------------------------------------------------------------
pec_case <- function(id, dn, times) {
  d <- data[[dn]]
  df <- data.frame(time = d$time, status = d$status)
  times <- sort(unique(times))
  R <- matrix(d$risk, nrow(df), length(times))
  S <- cbind(1, 1 - R)
  pe <- pec(list(m = S), formula = Surv(time, status) ~ 1, data = df, times = times, exact = FALSE, start = 0,
            verbose = FALSE)
  cr <- crps(pe, times = times)
  list(id = id, data = dn, times = J(times), grid = J(pe$time), ref = J(pe$AppErr$Reference), m = J(pe$AppErr$m),
       crps_ref = J(cr[1, ]), crps_m = J(cr[2, ]))
}
pecs <- list(pec_case("ties", "ties", c(3, 5, 8, 12)), pec_case("signal", "signal", c(1, 2, 3, 4, 5, 6, 8)))

# ---- Cox calibration slope ---------------------------------------------------------------
slope <- function(dn, lp) {
  d <- data[[dn]]
  f <- coxph(Surv(d$time, d$status) ~ lp)
  list(data = dn, lp = J(lp), coef = J(coef(f)), var = J(vcov(f)), loglik = J(f$loglik))
}
slopes <- list(slope("signal", data$signal$lp), slope("ties", log(-log(1 - pmin(pmax(data$ties$risk, 0.05), 0.95)))))

sm <- list(data = enc(data), concordance = conc, score = scores, score_errors = score_errors, pec = pecs,
           slope = slopes)
writeLines(toJSON(sm, digits = NA, auto_unbox = TRUE, null = "null", na = "null", pretty = FALSE,
                  json_verbatim = TRUE), "tests/fixtures/survival_metrics.json")

# ---- competing risks --------------------------------------------------------------------
set.seed(77)
cr <- list()
cr$cr <- list(time = round(rexp(90, 0.15), 0) + 1, event = sample(0:2, 90, TRUE, c(0.3, 0.45, 0.25)),
              risk = round(runif(90), 2))
cr$cr3 <- list(time = round(rexp(150, 0.1), 1) + 0.5, event = sample(0:3, 150, TRUE, c(0.25, 0.35, 0.25, 0.15)),
               risk = round(runif(150), 3))
cr$codes <- list(time = c(2, 3, 3, 5, 7, 7, 8, 10, 11, 12, 12, 15), event = c(0, 2, 5, 0, 5, 2, 2, 0, 5, 0, 2, 5),
                 risk = c(0.2, 0.3, 0.5, 0.1, 0.6, 0.3, 0.4, 0.2, 0.7, 0.1, 0.5, 0.8))
for (nm in names(cr)) cr[[nm]]$status <- as.numeric(cr[[nm]]$event != 0)

cuminc_case <- function(dn, times) {
  d <- cr[[dn]]
  f <- cuminc(d$time, d$event)
  tp <- timepoints(f, times)
  list(data = dn, times = J(times), names = names(f),
       curves = lapply(f, function(x) list(time = J(x$time), est = J(x$est), var = J(x$var))),
       tp_times = J(as.numeric(colnames(tp$est))), tp_est = lapply(seq_len(nrow(tp$est)), function(i) J(tp$est[i, ])),
       tp_var = lapply(seq_len(nrow(tp$var)), function(i) J(tp$var[i, ])), print = capture.output(print(f)))
}
cumincs <- list(cuminc_case("cr", c(-1, 0, 1, 2.5, 3, 8, 30, 100)), cuminc_case("cr3", c(0.5, 1, 5, 10.5, 20)),
                cuminc_case("codes", c(1, 3, 7, 12, 15, 16)))

crscores <- list()
for (cs in list(list("cr", 1, c(3, 5, 8)), list("cr", 2, c(3, 5, 8)), list("cr3", 1, c(2, 6, 10)),
                list("cr3", 3, c(4, 8)), list("codes", 5, c(5, 10)))) {
  dn <- cs[[1]]; cause <- cs[[2]]; times <- cs[[3]]
  data[[paste0(dn, "_cr")]] <- cr[[dn]]
  crscores[[length(crscores) + 1]] <- score_case(paste(dn, "cause", cause), paste0(dn, "_cr"), times,
                                                 list(m = cr[[dn]]$risk), cause = cause)
}

calib <- list()
cal_case <- function(dn, cause, horizon, q) {
  d <- cr[[dn]]
  df <- data.frame(time = d$time, status = d$status, event = d$event)
  s <- if (is.null(cause))
    Score(list(m = d$risk), formula = Hist(time, status) ~ 1, data = df, times = horizon, plots = "calibration",
          metrics = "brier")
  else Score(list(m = d$risk), formula = Hist(time, event) ~ 1, data = df, times = horizon, plots = "calibration",
             cause = cause, metrics = "brier")
  pc <- plotCalibration(s, method = "quantile", q = q, plot = FALSE, cens.method = "local")
  f <- pc$plotFrames[[1]]
  list(data = dn, cause = cause, horizon = horizon, q = q, Pred = J(f$Pred), Obs = J(f$Obs),
       quantiles = J(attr(f, "quantiles")), groups = rownames(f))
}
calib <- list(cal_case("cr", 1, 8, 10), cal_case("cr", 2, 5, 5), cal_case("cr3", 1, 10, 10), cal_case("cr3", 3, 6, 4),
              cal_case("cr", NULL, 6, 10))
calib_errors <- list(ties = err({
  d <- data.frame(time = cr$codes$time, status = cr$codes$status, event = cr$codes$event)
  s <- Score(list(m = rep(c(0.1, 0.5), 6)), formula = Hist(time, event) ~ 1, data = d, times = 8,
             plots = "calibration", cause = 5, metrics = "brier")
  plotCalibration(s, method = "quantile", q = 10, plot = FALSE, cens.method = "local")
}))

# dcurves with a competing event: the package's df_surv (cancer_cr) and the cr data
dca_case <- function(id, df, horizon, thresholds) {
  x <- dca(Surv(time, ev) ~ m, data = df, time = horizon, thresholds = thresholds)
  tb <- as.data.frame(as_tibble(x))
  list(id = id, time = J(df$time), ev_codes = J(as.integer(df$ev) - 1), levels = levels(df$ev), m = J(df$m),
       horizon = horizon, thresholds = J(thresholds), variable = as.character(tb$variable), pos_rate = J(tb$pos_rate),
       tp_rate = J(tb$tp_rate), fp_rate = J(tb$fp_rate), net_benefit = J(tb$net_benefit))
}
ds <- data.frame(time = df_surv$ttcancer, ev = df_surv$cancer_cr, m = df_surv$cancerpredmarker)
crd <- data.frame(time = cr$cr$time, ev = factor(cr$cr$event, 0:2, c("censored", "relapse", "death")), m = cr$cr$risk)
dcas <- list(dca_case("df_surv cancer_cr", ds, 1.5, seq(0, 0.99, by = 0.01)[-1]),
             dca_case("df_surv cancer_cr at 3", ds, 3, c(0.01, 0.1, 0.2, 0.3, 0.5)),
             dca_case("cr ties", crd, 6, c(0.05, 0.2, 0.4, 0.6, 0.8, 0.95)))

out <- list(data = enc(cr), cuminc = cumincs, score = crscores, calibration = calib, calibration_errors = calib_errors,
            dca = dcas)
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE, null = "null", na = "null", pretty = FALSE,
                  json_verbatim = TRUE), "tests/fixtures/competing_risks.json")
cat("done\n")
