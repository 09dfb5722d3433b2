# Reference values for calstats.clinical.pmcalibration with time-to-event outcomes
# (pmcalibration 0.2.0: survival::coxph with Efron ties, predict(type = "expected")).
# Run from the repository root:  Rscript tools/r-reference/make_pmcal_tte.R
# Writes tests/fixtures/pmcal_tte.json (inputs included, so the tests never run R).
suppressPackageStartupMessages({
  library(pmcalibration)
  library(survival)
  library(jsonlite)
})
stopifnot(packageVersion("pmcalibration") == "0.2.0")
source("tools/r-reference/fixture_json.R")
J <- json_num_null


# pmcalibration's own example: liver transplant waiting list, predictions at 100 days
data("transplant", package = "survival")
tx <- na.omit(transplant); tx <- subset(tx, futime > 0)
tx$ltx <- as.numeric(tx$event == "ltx")
cph <- coxph(Surv(futime, ltx) ~ age + sex + abo + year, data = tx)
newd <- tx; newd$futime <- 100; newd$ltx <- 1
p_tx <- 1 - exp(-predict(cph, type = "expected", newdata = newd))

# simulated: Weibull times, censoring, rounded times (many ties), a miscalibrated model
set.seed(23)
n <- 300
lp <- rnorm(n)
t_ev <- round(rweibull(n, shape = 1.3, scale = 4 * exp(-0.6 * lp)), 1) + 0.1
t_c <- round(runif(n, 0.5, 8), 1)
sim <- list(time = pmin(t_ev, t_c), status = as.numeric(t_ev <= t_c))
p_sim <- 1 - exp(-(2 / 4)^1.3 * exp(1.3 * 0.6 * 1.4 * lp))   # overconfident risk by t = 2

# small: 25 rows, every row an event
set.seed(5)
sm_lp <- rnorm(25)
small <- list(time = rexp(25, exp(0.5 * sm_lp)), status = rep(1, 25))
p_small <- 1 - exp(-1 * exp(0.5 * sm_lp))

data <- list(
  transplant = list(time = tx$futime, status = tx$ltx, p = p_tx),
  sim = list(time = sim$time, status = sim$status, p = p_sim),
  small = list(time = small$time, status = small$status, p = p_small)
)

run_case <- function(name, dat, time, seed = NULL, args) {
  d <- data[[dat]]
  a <- c(list(y = Surv(d$time, d$status), p = d$p, time = time, plot = FALSE), args)
  if (!is.null(seed)) set.seed(seed)
  r <- capture_all(do.call(pmcalibration, a))
  cal <- r$value
  s <- summary(cal)
  res <- list(
    metrics = as.list(cal$metrics),
    p_c = cal$p_c$p_c,
    curve = as.list(s$plot),
    metrics_table = as.list(s$metrics),
    print = capture.output(print(cal)),
    messages = r$messages, warnings = r$warnings
  )
  c(list(name = name, data = dat, time = time, seed = seed, args = args), enc(res))
}

cases <- list(
  list("tx_rcs_pw", "transplant", 100, NULL, list(smooth = "rcs", nk = 5, ci = "pw")),
  list("tx_none", "transplant", 100, NULL, list(smooth = "none", ci = "none")),
  list("tx_ns_boot", "transplant", 100, 7, list(smooth = "ns", df = 3, ci = "boot", n = 20)),
  list("sim_none_pw", "sim", 2, NULL, list(smooth = "none", ci = "pw", eval = 30)),
  list("sim_rcs_boot", "sim", 2, 31, list(smooth = "rcs", nk = 4, ci = "boot", n = 20)),
  list("sim_bs", "sim", 2, NULL, list(smooth = "bs", df = 4, ci = "none")),
  list("sim_ns_logit", "sim", 3.5, NULL, list(smooth = "ns", df = 3, ci = "pw", transf = "logit")),
  list("small_none", "small", 1, NULL, list(smooth = "none", ci = "pw", eval = 10)),
  list("tx_gam_pw", "transplant", 100, NULL, list(smooth = "gam", ci = "pw")),
  list("sim_gam_k5_boot", "sim", 2, 41, list(smooth = "gam", k = 5, ci = "boot", n = 10)),
  list("sim_gam_cr_reml", "sim", 3.5, NULL, list(smooth = "gam", bs = "cr", method = "REML", ci = "none"))
)
out_cases <- lapply(cases, function(cs) do.call(run_case, setNames(cs, c("name", "dat", "time", "seed", "args"))))

d <- data$sim
err <- function(expr) tryCatch({ expr; NULL }, error = conditionMessage)
errors <- list(
  sim = err(pmcalibration(Surv(d$time, d$status), d$p, smooth = "none", ci = "sim", time = 2, plot = FALSE)),
  lowess = err(pmcalibration(Surv(d$time, d$status), d$p, smooth = "lowess", ci = "none", time = 2, plot = FALSE)),
  notime = err(pmcalibration(Surv(d$time, d$status), d$p, smooth = "none", ci = "none", plot = FALSE)),
  twotimes = err(pmcalibration(Surv(d$time, d$status), d$p, smooth = "none", ci = "none", time = c(1, 2),
                               plot = FALSE))
)

writeLines(toJSON(list(data = enc(data), cases = out_cases, errors = errors), digits = NA, auto_unbox = TRUE,
                  null = "null", na = "null", pretty = FALSE, json_verbatim = TRUE),
           "tests/fixtures/pmcal_tte.json")
cat("done\n")
