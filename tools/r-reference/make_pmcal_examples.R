# Reference values of pmcalibration 0.2.0's own man-page examples (every Rd file with an
# example), for tests/test_pmcal_examples.py.
# Run from the repository root:  Rscript tools/r-reference/make_pmcal_examples.R
# Writes tests/fixtures/pmcal_examples.json.
#
# The man pages draw their data without a seed; here every example draws it after
# set.seed(202) (which gives a smoothing parameter on the flat side of the criterion, the
# case that shows whether mgcv's iteration is replayed). Two further cases take the gam
# example with R's resampling: ci = "sim" (n = 200) and ci = "boot" (n = 50) after
# set.seed(11), with the fitted gam's coefficients and Vp.
suppressPackageStartupMessages({
  library(pmcalibration)
  library(mgcv)
  library(survival)
  library(jsonlite)
})
stopifnot(packageVersion("pmcalibration") == "0.2.0")
source("tools/r-reference/fixture_json.R")
J <- json_num_null

man_data <- function() {
  set.seed(202)
  n <- 500
  dat <- sim_dat(N = n, a1 = .5, a3 = .2)
  p <- with(dat, invlogit(.5 + x1 + x2 + x1*x2*.1))
  list(y = dat$y, p = p, x1 = dat$x1, x2 = dat$x2, LP = dat$LP)
}
d <- man_data()
out <- list(data = lapply(d, J))

# cal_metrics.Rd
set.seed(202)
LP <- rnorm(100)
p_c <- invlogit(LP)
p <- invlogit(LP * 1.3)
out$cal_metrics <- list(p = J(p), p_c = J(p_c), metrics = J(cal_metrics(p = p, p_c = p_c)))

# sim_dat.Rd (the data above; no calstats counterpart, kept to show the draws)
out$sim_dat_head <- capture.output(head(sim_dat(N = 5, a1 = .5, a3 = .2)))

smooth_case <- function(obj) {
  list(p_c = J(obj$p_c), metrics = J(obj$metrics),
       p_c_plot = if (is.null(obj$p_c_plot)) NULL else J(obj$p_c_plot))
}

# gam_cal.Rd: x = p (untransformed), k = 20, REML
g <- capture_all(pmcalibration:::gam_cal(y = d$y, p = d$p, x = d$p, xp = NULL, k = 20, method = "REML"))
out$gam_cal <- c(smooth_case(g$value), list(sp = J(g$value$model$sp), coef = J(coef(g$value$model)),
                                            messages = g$messages, warnings = g$warnings))

# glm_cal.Rd: natural spline, df = 5, x = p
g <- capture_all(pmcalibration:::glm_cal(y = d$y, p = d$p, x = d$p, xp = NULL, smooth = "ns", df = 5))
out$glm_cal <- c(smooth_case(g$value), list(messages = g$messages, warnings = g$warnings))

# loess_cal.Rd (R's default loess: surface = "interpolate"), and the direct surface
g <- capture_all(pmcalibration:::loess_cal(y = d$y, p = d$p, x = d$p, xp = NULL))
fd <- loess(y ~ x, data = data.frame(y = d$y, x = d$p), control = loess.control(surface = "direct"))
out$loess_cal <- c(smooth_case(g$value), list(p_c_direct = J(predict(fd)),
                                              messages = g$messages, warnings = g$warnings))

# lowess_cal.Rd
g <- capture_all(pmcalibration:::lowess_cal(y = d$y, p = d$p, x = d$p, xp = NULL))
out$lowess_cal <- c(smooth_case(g$value), list(messages = g$messages, warnings = g$warnings))

# logistic_cal.Rd
g <- capture_all(logistic_cal(y = d$y, p = d$p))
lc <- g$value
out$logistic_cal <- list(print = capture.output(print(lc)),
                         print_summary = capture.output(print(summary(lc))),
                         messages = g$messages, warnings = g$warnings)

# pmcalibration.Rd / summary.pmcalibration.Rd / get_curve.Rd / plot.pmcalibration.Rd:
# gam, k = 20, pointwise intervals
g <- capture_all(pmcalibration(y = d$y, p = d$p, smooth = "gam", k = 20, ci = "pw", plot = FALSE))
cal <- g$value
s <- summary(cal)
out$pmcal_gam_pw <- list(
  metrics = J(cal$metrics), p_c = J(cal$p_c$p_c), curve = lapply(as.list(get_curve(cal, conf_level = .95)), J),
  curve_head = capture.output(head(get_curve(cal, conf_level = .95))),
  print = capture.output(print(s)), messages = g$messages, warnings = g$warnings)

# pmcalibration.Rd, time-to-event part: transplant, rcs with 5 knots, pointwise intervals
data("transplant", package = "survival")
transplant <- na.omit(transplant)
transplant <- subset(transplant, futime > 0)
transplant$ltx <- as.numeric(transplant$event == "ltx")
cph <- coxph(Surv(futime, ltx) ~ age + sex + abo + year, data = transplant)
time <- 100
newd <- transplant; newd$futime <- time; newd$ltx <- 1
p_t <- 1 - exp(-predict(cph, type = "expected", newdata = newd))
y_t <- with(transplant, Surv(futime, ltx))
g <- capture_all(pmcalibration(y = y_t, p = p_t, smooth = "rcs", nk = 5, ci = "pw", time = time, plot = FALSE))
cal <- g$value
out$pmcal_tte <- list(
  futime = J(transplant$futime), ltx = J(transplant$ltx), p = J(p_t), time = time,
  metrics = J(cal$metrics), p_c = J(cal$p_c$p_c), curve = lapply(as.list(get_curve(cal, conf_level = .95)), J),
  print = capture.output(print(summary(cal))), messages = g$messages, warnings = g$warnings)

# reg_spline_X.Rd
set.seed(202)
x <- rnorm(100)
xp <- seq(min(x), max(x), length.out = 50)
r <- pmcalibration:::reg_spline_X(x = x, xp = xp, smooth = "rcs", nk = 6)
out$reg_spline_X <- list(x = J(x), xp = J(xp), X = lapply(as.data.frame(unclass(r$X)), J),
                         Xp = lapply(as.data.frame(unclass(r$Xp)), J))

# the gam example with R's resampling after set.seed(11)
gam_resampled <- function(ci, n) {
  set.seed(11)
  g <- capture_all(pmcalibration(y = d$y, p = d$p, smooth = "gam", ci = ci, n = n, plot = FALSE))
  cal <- g$value
  x <- qlogis(d$p)
  m <- mgcv::gam(y ~ s(x), data = data.frame(y = d$y, x = x), family = binomial(link = "logit"))
  s <- summary(cal)
  list(ci = ci, n = n, seed = 11, sp = J(m$sp), coef = J(coef(m)), vcov = J(vcov(m)),
       outer_iter = m$outer.info$iter,
       metrics = J(cal$metrics), p_c = J(cal$p_c$p_c),
       metrics_samples = unname(lapply(as.data.frame(cal$metrics.samples), J)),
       plot_samples = unname(lapply(as.data.frame(cal$plot$plot.samples), J)),
       summary = lapply(as.list(s$metrics), J), curve = lapply(as.list(get_curve(cal)), J),
       print = capture.output(print(s)), messages = g$messages, warnings = g$warnings)
}
out$gam_sim <- gam_resampled("sim", 200)
out$gam_boot <- gam_resampled("boot", 50)

writeLines(toJSON(out, auto_unbox = TRUE, json_verbatim = TRUE, null = "null", digits = NA),
           "tests/fixtures/pmcal_examples.json")
cat("wrote tests/fixtures/pmcal_examples.json\n")
