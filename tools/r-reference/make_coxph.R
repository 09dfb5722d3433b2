#!/usr/bin/env Rscript
# R references for calstats.ports.survival.coxph: survival::coxph (right-censored, Efron ties,
# default coxph.control) and predict.coxph(type = "expected", newdata = ..., se.fit = TRUE),
# called exactly as pmcalibration's glm_cal does (survival 3.5-3, R 4.2.2).
#
# Writes tests/fixtures/coxph.json (run from the repository root):
#   Rscript tools/r-reference/make_coxph.R
# Every case records its inputs at full precision (17 significant digits), R's fit, R's
# warnings and the expected cumulative hazard (and its se) at several times t0 for the rows
# of a new design. The tests read only the JSON.
suppressMessages(library(survival))
library(jsonlite)
source("tools/r-reference/fixture_json.R")
J <- json_num_str

cases <- list()
add <- function(case) cases[[length(cases) + 1]] <<- case

Jmat <- function(m) lapply(seq_len(ncol(m)), function(j) J(m[, j]))  # list of columns

run <- function(f) {
  warns <- character(0)
  res <- withCallingHandlers(
    tryCatch(list(value = f()), error = function(e) list(error = conditionMessage(e))),
    warning = function(w) { warns <<- c(warns, conditionMessage(w)); invokeRestart("muffleWarning") })
  res$warnings <- warns
  res
}

# the calls of pmcalibration::glm_cal (times/events columns, Surv(times, events) ~ .)
cox_case <- function(name, times, events, X, t0, Xnew = NULL, iter.max = 20) {
  X <- as.matrix(X)
  colnames(X) <- paste0("x", seq_len(ncol(X)))
  if (is.null(Xnew)) Xnew <- X[seq_len(min(nrow(X), 25)), , drop = FALSE]
  Xnew <- as.matrix(Xnew)
  colnames(Xnew) <- colnames(X)
  d <- data.frame(times, events, X)
  fit <- run(function() survival::coxph(survival::Surv(times, events) ~ ., data = d, x = TRUE,
                                        control = coxph.control(iter.max = iter.max)))
  case <- list(name = name, iter_max = iter.max, time = J(times), status = J(events), X = Jmat(X),
               Xnew = Jmat(Xnew), t0 = J(t0), warnings = I(fit$warnings))
  if (!is.null(fit$error)) {
    case$error <- fit$error
    add(case)
    return(invisible(NULL))
  }
  mod <- fit$value
  case$coefficients <- J(mod$coefficients)
  case$var <- Jmat(mod$var)
  case$loglik <- J(mod$loglik)
  case$iter <- mod$iter
  case$means <- J(mod$means)
  case$linear_predictors <- J(mod$linear.predictors)
  case$nevent <- mod$nevent
  pr <- lapply(t0, function(tt) {
    p <- run(function() predict(mod, type = "expected",
                                newdata = data.frame(times = tt, events = 1, Xnew), se.fit = TRUE))
    p0 <- predict(mod, type = "expected", newdata = data.frame(times = tt, events = 1, Xnew))
    list(fit = J(p$value$fit), se = J(p$value$se.fit), fit_nose = J(p0), warnings = I(p$warnings))
  })
  case$expected <- pr
  add(case)
}

# ---- simulated designs -------------------------------------------------------------------
sim <- function(n, p, seed, cens = 0.3, rho = 0) {
  set.seed(seed)
  Z <- matrix(rnorm(n * p), n, p)
  if (rho > 0 && p > 1) for (j in 2:p) Z[, j] <- rho * Z[, j - 1] + sqrt(1 - rho^2) * Z[, j]
  beta <- seq(0.8, -0.4, length.out = p)
  t <- rexp(n, exp(c(Z %*% beta)))
  cc <- rexp(n, cens)
  list(time = pmin(t, cc), status = as.numeric(t <= cc), X = Z)
}
qt0 <- function(time, status) {
  ev <- sort(time[status == 1])
  c(min(ev) / 2, ev[1], stats::median(ev), ev[length(ev)], max(time) * 2)
}

s <- sim(20, 1, 1)
cox_case("n20_p1", s$time, s$status, s$X, qt0(s$time, s$status))
s <- sim(100, 3, 2)
cox_case("n100_p3", s$time, s$status, s$X, qt0(s$time, s$status))
s <- sim(300, 2, 3, rho = 0.9)
cox_case("n300_p2_correlated", s$time, s$status, s$X, qt0(s$time, s$status))
s <- sim(2000, 5, 4)
cox_case("n2000_p5", s$time, s$status, s$X, qt0(s$time, s$status), Xnew = s$X[1:40, ])

# ties: times rounded to a few distinct values (many ties, events and censorings tied)
s <- sim(500, 2, 5)
tt <- ceiling(s$time * 4)
cox_case("n500_p2_many_ties", tt, s$status, s$X, c(0.5, 1, 2, 3.5, 5, 100))
s <- sim(60, 3, 6)
tt <- round(s$time, 1) + 0.1
cox_case("n60_p3_ties", tt, s$status, s$X, c(0.05, sort(unique(tt[s$status == 1]))[1:3], 50))

# all events (no censoring)
s <- sim(50, 2, 7, cens = 1e-9)
cox_case("n50_p2_all_events", s$time, rep(1, 50), s$X, qt0(s$time, rep(1, 50)))

# few events
s <- sim(40, 1, 8)
st <- numeric(40); st[order(s$time)[c(3, 11, 25)]] <- 1
cox_case("n40_p1_three_events", s$time, st, s$X, c(0.001, sort(s$time[st == 1]), 100))
s <- sim(30, 2, 9)
st <- numeric(30); st[order(s$time)[c(5, 9)]] <- 1
cox_case("n30_p2_two_events", s$time, st, s$X, c(sort(s$time[st == 1]), 1e3))

# spline designs of a transformed predicted probability, as pmcalibration builds them
set.seed(10)
n <- 400
p <- plogis(rnorm(n, -1, 1))
lp <- log(-log(1 - p))
t <- rexp(n, exp(0.2 + 1.1 * lp))
cc <- runif(n, 0, 3)
time <- pmin(t, cc); status <- as.numeric(t <= cc)
X5 <- Hmisc::rcspline.eval(lp, nk = 5, inclx = TRUE)
xp <- seq(min(lp), max(lp), length.out = 30)
Xp5 <- Hmisc::rcspline.eval(xp, knots = attr(X5, "knots"), inclx = TRUE)
cox_case("rcs5_cloglog", time, status, X5, c(0.5, 1, 2), Xnew = Xp5)
X6 <- splines::ns(lp, df = 6)
Xp6 <- predict(X6, xp)
cox_case("ns6_cloglog", time, status, X6, c(1), Xnew = Xp6)
X7 <- splines::bs(lp, df = 7)
Xp7 <- predict(X7, xp)
cox_case("bs7_cloglog", time, status, X7, c(1), Xnew = Xp7)

# a 0/1 covariate (coxph leaves it uncentred: nocenter = c(-1, 0, 1))
s <- sim(80, 2, 11)
X01 <- cbind(s$X[, 1], as.numeric(s$X[, 2] > 0))
cox_case("n80_binary_column", s$time, s$status, X01, qt0(s$time, s$status))

# near-ties within all.equal's tolerance (aeqSurv makes them exact ties)
s <- sim(40, 1, 12)
tt <- round(s$time, 2) + 0.01
tt[seq(2, 40, by = 3)] <- tt[seq(2, 40, by = 3)] * (1 + 1e-10)
cox_case("n40_near_ties", tt, s$status, s$X, c(0.005, tt[s$status == 1][1], 10))

# monotone likelihood: R runs out of iterations (all events, covariate = rank of time)
set.seed(13)
t <- rexp(30)
cox_case("monotone_ran_out", t, rep(1, 30), rank(-t), c(0.1, 1))
set.seed(13)
t <- rexp(100)
cox_case("monotone_lp_over_500", t, rep(1, 100), rank(-t), c(0.01, 1))
# infinite coefficient announced at convergence
set.seed(14)
n <- 40
g <- rep(0:1, each = 20)
t <- rexp(n)
st <- as.numeric(g == 1 & runif(n) < 0.7)
cox_case("separation_loglik_converged", t, st, cbind(g, rnorm(n)), c(0.2, 1))

# singular design (a duplicated column): NA coefficient
s <- sim(50, 2, 15)
cox_case("singular", s$time, s$status, cbind(s$X, s$X[, 1]), c(0.5))

# no events at all
s <- sim(25, 1, 16)
cox_case("no_events", s$time, rep(0, 25), s$X, c(0.5))

# iteration limits (coxph.control(iter.max)): one and two Newton steps
s <- sim(100, 3, 17)
cox_case("iter_max_1", s$time, s$status, s$X, c(0.5, 1), iter.max = 1)
cox_case("iter_max_2", s$time, s$status, s$X, c(0.5, 1), iter.max = 2)
cox_case("iter_max_0", s$time, s$status, s$X, c(0.5, 1), iter.max = 0)

# ---- real data as in pmcalibration's examples ----------------------------------------------
data("transplant", package = "survival")
transplant <- na.omit(transplant)
transplant <- subset(transplant, futime > 0)
transplant$ltx <- as.numeric(transplant$event == "ltx")
cph <- coxph(Surv(futime, ltx) ~ age + sex + abo + year, data = transplant)
newd <- transplant; newd$futime <- 100; newd$ltx <- 1
p <- 1 - exp(-predict(cph, type = "expected", newdata = newd))
xt <- log(-log(1 - p))
Xt <- Hmisc::rcspline.eval(xt, nk = 5, inclx = TRUE)
xpt <- seq(min(xt), max(xt), length.out = 50)
Xpt <- Hmisc::rcspline.eval(xpt, knots = attr(Xt, "knots"), inclx = TRUE)
cox_case("transplant_rcs5", transplant$futime, transplant$ltx, Xt, c(100), Xnew = Xpt)

lung <- na.omit(survival::lung[, c("time", "status", "age", "sex", "ph.ecog")])
lung$status <- lung$status - 1
cphl <- coxph(Surv(time, status) ~ age + sex + ph.ecog, data = lung)
newl <- lung; newl$time <- 365; newl$status <- 1
pl <- 1 - exp(-predict(cphl, type = "expected", newdata = newl))
xl <- log(-log(1 - pl))
Xl <- splines::ns(xl, df = 3)
xpl <- seq(min(xl), max(xl), length.out = 20)
cox_case("lung_ns3", lung$time, lung$status, Xl, c(30, 365, 1022, 2000), Xnew = predict(Xl, xpl))
cox_case("lung_age_sex_ecog", lung$time, lung$status, as.matrix(lung[, c("age", "sex", "ph.ecog")]),
         c(5, 365, 1022))

out <- list(r_version = R.version.string, survival = as.character(packageVersion("survival")),
            cases = cases)
writeLines(toJSON(out, auto_unbox = TRUE, digits = NA, json_verbatim = TRUE, null = "null"),
           "tests/fixtures/coxph.json")
cat("wrote", length(cases), "cases\n")
