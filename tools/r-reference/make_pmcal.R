# Reference values for calstats.clinical.pmcal (pmcalibration 0.2.0, binary outcomes).
# Run from the repository root:  Rscript tools/r-reference/make_pmcal.R
# Writes tests/fixtures/pmcal.json.
suppressPackageStartupMessages({
  library(pmcalibration)
  library(jsonlite)
})
stopifnot(packageVersion("pmcalibration") == "0.2.0")
source("tools/r-reference/fixture_json.R")
J <- json_num_null



# data --------------------------------------------------------------------------------
set.seed(2024)
N <- 200
lp <- rnorm(N, -0.3, 1.2)
y <- rbinom(N, 1, plogis(0.2 + 0.8 * lp + 0.15 * lp^2))
p <- plogis(lp)

set.seed(7)
n_small <- 20
p_small <- plogis(rnorm(n_small, 0, 1.5))
y_small <- rbinom(n_small, 1, p_small)

set.seed(11)
p_ties <- round(plogis(rnorm(150, -0.5, 1)), 2)
p_ties[p_ties <= 0] <- 0.01; p_ties[p_ties >= 1] <- 0.99
y_ties <- rbinom(150, 1, p_ties)

set.seed(5)
lp_ext <- rnorm(120, 0, 3.5)
p_ext <- plogis(lp_ext)
p_ext <- pmin(pmax(p_ext, 1e-6), 1 - 1e-6)
y_ext <- rbinom(120, 1, plogis(0.8 * lp_ext))

data <- list(
  main = list(y = y, p = p),
  small = list(y = y_small, p = p_small),
  ties = list(y = y_ties, p = p_ties),
  ext = list(y = y_ext, p = p_ext)
)

tf_user <- function(x) log(x)

run_case <- function(name, dat, seed = NULL, args) {
  a <- c(list(y = data[[dat]]$y, p = data[[dat]]$p, plot = FALSE), args)
  if (identical(a$transf, "USER")) a$transf <- tf_user
  if (!is.null(seed)) set.seed(seed)
  r <- capture_all(do.call(pmcalibration, a))
  cal <- r$value
  s <- summary(cal)
  s90 <- summary(cal, conf_level = 0.9)
  txt <- capture.output(print(cal))
  txt3 <- capture.output(print(cal, digits = 3))
  args_out <- args
  if (identical(args_out$transf, "USER")) args_out$transf <- "USER"
  res <- list(
    metrics = as.list(cal$metrics),
    p_c = cal$p_c$p_c,
    curve = as.list(s$plot),
    curve90 = as.list(s90$plot),
    metrics_table = list(rows = rownames(s$metrics), cols = as.list(s$metrics)),
    metrics_table90 = as.list(s90$metrics),
    metrics_samples = if (is.null(cal$metrics.samples)) NULL else unname(as.list(as.data.frame(cal$metrics.samples))),
    plot_samples = if (is.null(cal$plot$plot.samples)) NULL else unname(as.list(as.data.frame(cal$plot$plot.samples))),
    p_c_plot_se = cal$plot$p_c_plot_se,
    knots_used = cal$smooth_args$knots_used,
    print = txt, print3 = txt3,
    messages = r$messages, warnings = r$warnings
  )
  c(list(name = name, data = dat, seed = seed, args = args_out), enc(res))
}

cases <- list(
  list("none", "main", NULL, list(smooth = "none", ci = "none")),
  list("none_sim", "main", 101, list(smooth = "none", ci = "sim", n = 40)),
  list("none_boot", "main", 102, list(smooth = "none", ci = "boot", n = 30)),
  list("none_pw", "main", NULL, list(smooth = "none", ci = "pw", eval = 25)),
  list("rcs_default", "main", NULL, list(smooth = "rcs", ci = "none")),
  list("rcs_sim", "main", 103, list(smooth = "rcs", nk = 4, ci = "sim", n = 50)),
  list("rcs_boot", "main", 104, list(smooth = "rcs", nk = 4, ci = "boot", n = 30)),
  list("rcs_knots_boot", "main", 105, list(smooth = "rcs", knots = c(-2, -1, 0, 1.5), ci = "boot", n = 20)),
  list("rcs_pw", "main", NULL, list(smooth = "rcs", nk = 3, ci = "pw", eval = 30)),
  list("rcs_small", "small", NULL, list(smooth = "rcs", nk = 3, ci = "none")),
  list("rcs_ties", "ties", NULL, list(smooth = "rcs", nk = 5, ci = "none")),
  list("rcs_ties_boot", "ties", 106, list(smooth = "rcs", nk = 5, ci = "boot", n = 20)),
  list("rcs_none_transf", "main", NULL, list(smooth = "rcs", nk = 5, ci = "none", transf = "none")),
  list("ns_default", "main", NULL, list(smooth = "ns", ci = "none")),
  list("ns_sim", "main", 107, list(smooth = "ns", df = 3, ci = "sim", n = 40)),
  list("ns_boot", "main", 108, list(smooth = "ns", df = 4, ci = "boot", n = 25)),
  list("ns_knots_bk", "main", 109, list(smooth = "ns", knots = c(-1, 0, 1), Boundary.knots = c(-4, 3), ci = "boot", n = 20)),
  list("ns_pw", "main", NULL, list(smooth = "ns", df = 4, ci = "pw", eval = 20)),
  list("bs_default", "main", NULL, list(smooth = "bs", ci = "none")),
  list("bs_sim", "main", 110, list(smooth = "bs", df = 5, ci = "sim", n = 30)),
  list("bs_boot", "main", 111, list(smooth = "bs", df = 4, ci = "boot", n = 20)),
  list("lowess", "main", NULL, list(smooth = "lowess", ci = "none")),
  list("lowess_boot", "main", 112, list(smooth = "lowess", ci = "boot", n = 30)),
  list("lowess_ties_boot", "ties", 113, list(smooth = "lowess", ci = "boot", n = 20)),
  list("lowess_pw", "main", NULL, list(smooth = "lowess", ci = "pw", eval = 10)),
  list("loess", "main", NULL, list(smooth = "loess", ci = "none")),
  list("loess_boot", "main", 114, list(smooth = "loess", ci = "boot", n = 25)),
  list("loess_pw", "main", NULL, list(smooth = "loess", ci = "pw", eval = 30)),
  list("loess_ties", "ties", NULL, list(smooth = "loess", ci = "none", transf = "none")),
  list("cloglog_rcs_sim", "main", 115, list(smooth = "rcs", nk = 4, ci = "sim", n = 30, transf = "cloglog")),
  list("user_transf", "main", 116, list(smooth = "ns", df = 3, ci = "boot", n = 20, transf = "USER")),
  list("eval_vector", "main", 117, list(smooth = "rcs", nk = 4, ci = "sim", n = 20, eval = c(0.05, 0.2, 0.5, 0.8, 0.9))),
  list("eval_zero", "main", 118, list(smooth = "rcs", nk = 4, ci = "sim", n = 20, eval = 0)),
  list("eval_zero_pw", "main", NULL, list(smooth = "none", ci = "pw", eval = 0)),
  list("ext_rcs_boot", "ext", 119, list(smooth = "rcs", nk = 5, ci = "boot", n = 20)),
  list("ext_none_sim", "ext", 120, list(smooth = "none", ci = "sim", n = 30)),
  list("small_lowess_boot", "small", 121, list(smooth = "lowess", ci = "boot", n = 20)),
  list("small_loess_boot", "small", 122, list(smooth = "loess", ci = "boot", n = 20, eval = 15)),
  list("gam_default", "main", NULL, list(smooth = "gam", ci = "none")),
  list("gam_pw", "main", NULL, list(smooth = "gam", k = 6, ci = "pw", eval = 20)),
  list("gam_sim", "main", 123, list(smooth = "gam", k = 5, ci = "sim", n = 30)),
  list("gam_boot", "main", 124, list(smooth = "gam", k = 5, method = "REML", ci = "boot", n = 20))
)

out_cases <- list()
for (cs in cases) {
  res <- tryCatch(run_case(cs[[1]], cs[[2]], cs[[3]], cs[[4]]),
                  error = function(e) list(name = cs[[1]], error = conditionMessage(e)))
  out_cases[[cs[[1]]]] <- res
}

# boot == in-process lapply(boot) check
set.seed(102)
cal1 <- pmcalibration(y = y, p = p, smooth = "none", ci = "boot", n = 30, plot = FALSE)
set.seed(102)
base <- pmcalibration(y = y, p = p, smooth = "none", ci = "none", plot = FALSE)
cal0 <- pmcalibration:::glm_cal(y = y, p = p, x = qlogis(p), xp = qlogis(base$plot$p), smooth = "none")
set.seed(102)
bb <- lapply(1:30, function(i) pmcalibration:::boot(cal0))
stopifnot(isTRUE(all.equal(do.call(rbind, lapply(bb, function(s) s$metrics)), cal1$metrics.samples)))

# print of each error
errs <- list(
  length = tryCatch(pmcalibration(y = y[-1], p = p, plot = FALSE), error = conditionMessage),
  transf = tryCatch(pmcalibration(y = y, p = p, transf = "probit", plot = FALSE), error = conditionMessage),
  eval = tryCatch(pmcalibration(y = y, p = p, smooth = "none", eval = c(0.1, 1.2), plot = FALSE), error = conditionMessage),
  sim_lowess = tryCatch(pmcalibration(y = y, p = p, smooth = "lowess", ci = "sim", plot = FALSE), error = conditionMessage),
  mvrnorm_pd = tryCatch(MASS::mvrnorm(2, c(0, 0), matrix(c(1, 2, 2, 1), 2)), error = conditionMessage),
  mvrnorm_dim = tryCatch(MASS::mvrnorm(2, c(0, 0), diag(3)), error = conditionMessage)
)

# missing values and p outside (0, 1)
yy <- y[1:60]; pp <- p[1:60]
pp[3] <- NA; yy[10] <- NA; pp[20] <- 0; pp[21] <- 1
rm_case <- capture_all(pmcalibration(y = yy, p = pp, smooth = "none", ci = "none", plot = FALSE))
removal <- list(y = ifelse(is.na(yy), -1, yy), p = ifelse(is.na(pp), -1, pp),
                metrics = as.list(rm_case$value$metrics),
                messages = rm_case$messages, warnings = rm_case$warnings)

# cal_metrics with a missing p_c
cm <- capture_all(cal_metrics(p = c(0.2, 0.4, 0.6), p_c = c(0.25, NA, 0.5)))
cm_ok <- cal_metrics(p = p[1:15], p_c = p[16:30])

# MASS::mvrnorm
mv <- list()
sigmas <- list(
  matrix(c(2, 0.5, 0.5, 1), 2),
  matrix(c(1, 0.3, 0.1, 0.3, 2, -0.4, 0.1, -0.4, 0.5), 3),
  diag(c(1, 4, 9)),
  matrix(c(1, 1, 1, 1), 2)
)
for (i in seq_along(sigmas)) {
  S <- sigmas[[i]]
  mu <- seq_len(nrow(S)) / 10
  set.seed(300 + i)
  X <- MASS::mvrnorm(7, mu, S)
  e <- eigen(S, symmetric = TRUE)
  mv[[i]] <- list(sigma = unname(as.list(as.data.frame(S))), mu = mu, seed = 300 + i,
                  draws = unname(as.list(as.data.frame(X))),
                  vectors = unname(as.list(as.data.frame(e$vectors))), values = e$values)
}
set.seed(399)
mv1 <- MASS::mvrnorm(1, c(1, 2), matrix(c(2, 0.5, 0.5, 1), 2))

# Hmisc::rcspline.eval knot rules (inclx = TRUE)
set.seed(31)
x_few <- sample(c(-1, -0.5, 0, 0.3, 0.9, 1.4, 2), 40, replace = TRUE)
x_tied <- c(rep(0, 15), rep(3, 12), rnorm(150, 1.5, 0.6))
x_small <- rnorm(30)
x_big <- rnorm(250)
rcs_one <- function(x, nk) {
  r <- capture_all(Hmisc::rcspline.eval(x, nk = nk, inclx = TRUE))
  list(x = J(x), nk = nk, knots = J(attr(r$value, "knots")), X = enc(unname(as.list(as.data.frame(r$value)))),
       warnings = r$warnings)
}
rcs_cases <- list(few = rcs_one(x_few, 5), tied = rcs_one(x_tied, 5), small3 = rcs_one(x_small, 3),
                  small6 = rcs_one(x_small, 6), big7 = rcs_one(x_big, 7), big4 = rcs_one(x_big, 4))
rcs_errors <- list(
  few = tryCatch(Hmisc::rcspline.eval(1:5, nk = 3), error = conditionMessage),
  nk = tryCatch(Hmisc::rcspline.eval(rnorm(20), nk = 2), error = conditionMessage))

# the gam behind gam_sim: its coefficients and Vp (the draws of ci = "sim" are MASS::mvrnorm's
# of these; LAPACK's eigenvector signs for this Vp change under a 1-ulp change of it)
m_sim <- mgcv::gam(y ~ s(x, k = 5), data = data.frame(y = y, x = qlogis(p)), family = binomial(link = "logit"))
out_cases$gam_sim$gam_coef <- J(coef(m_sim))
out_cases$gam_sim$gam_vcov <- J(vcov(m_sim))
out_cases$gam_sim$gam_sp <- J(m_sim$sp)

out <- list(rcspline = rcs_cases, rcspline_errors = rcs_errors, data = enc(data), cases = out_cases, errors = errs, removal = enc(removal),
            cal_metrics = enc(list(na = list(value = as.list(cm$value), messages = cm$messages),
                                   ok = list(p = p[1:15], p_c = p[16:30], value = as.list(cm_ok)))),
            mvrnorm = enc(mv), mvrnorm1 = enc(mv1))
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE, null = "null", na = "null", pretty = FALSE,
                  json_verbatim = TRUE),
           "tests/fixtures/pmcal.json")
cat("done\n")
