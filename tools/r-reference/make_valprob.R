#!/usr/bin/env Rscript
# R references for calstats.clinical: rms::val.prob (rms 6.5-0, R 4.2.2) and the
# Hosmer-Lemeshow test (ResourceSelection::hoslem.test definition, written out below
# because ResourceSelection is not packaged by Debian).
#
# Writes tests/fixtures/valprob.json (run from the repository root):
#   Rscript tools/r-reference/make_valprob.R
# Every case records its inputs at full precision (17 significant digits), the R call,
# R's result (or R's error message) and R's warnings. The tests read only the JSON.
suppressMessages(library(rms))
library(jsonlite)

cases <- list()
add <- function(case) cases[[length(cases) + 1]] <<- case

# jsonlite prints at most 15 significant digits: numbers are written verbatim with 17,
# R's NA/NaN/Inf as the strings "NA", "NaN", "Inf", "-Inf". Always a JSON array.
J <- function(x) {
  x <- as.numeric(unname(x))
  s <- sprintf("%.17g", x)
  s[is.na(x)] <- '"NA"'
  s[is.nan(x)] <- '"NaN"'
  s[!is.na(x) & x == Inf] <- '"Inf"'
  s[!is.na(x) & x == -Inf] <- '"-Inf"'
  structure(paste0("[", paste(s, collapse = ","), "]"), class = "json")
}
num_or_null <- function(x) if (is.null(x)) NULL else J(x)

run <- function(f) {
  warns <- character(0)
  res <- withCallingHandlers(
    tryCatch(list(value = f()), error = function(e) list(error = conditionMessage(e))),
    warning = function(w) { warns <<- c(warns, conditionMessage(w)); invokeRestart("muffleWarning") })
  res$warnings <- warns
  res
}

enc_group <- function(g) {
  if (is.null(g)) return(NULL)
  if (is.factor(g)) return(list(type = "factor", values = as.character(g), levels = levels(g)))
  if (is.logical(g)) return(list(type = "logical", values = g))
  if (is.character(g)) return(list(type = "character", values = g))
  list(type = "numeric", values = J(g))
}

enc_matrix <- function(m) list(rownames = rownames(m), colnames = colnames(m),
                               values = unname(lapply(seq_len(nrow(m)), function(i) J(m[i, ]))))

vp <- function(id, p = NULL, y, logit = NULL, group = NULL, weights = NULL, normwt = FALSE,
               smooth = TRUE, logistic.cal = TRUE, g.group = 4, evaluate = 100, nmin = 0, note = "") {
  args <- list(y = y, normwt = normwt, smooth = smooth, logistic.cal = logistic.cal, pl = FALSE)
  if (!is.null(p)) args$p <- p
  if (!is.null(logit)) args$logit <- logit
  if (!is.null(group)) { args$group <- group; args$g.group <- g.group; args$evaluate <- evaluate; args$nmin <- nmin }
  if (!is.null(weights)) args$weights <- weights
  r <- run(function() do.call(val.prob, args))
  out <- list(id = id, note = note,
              inputs = list(p = num_or_null(p), y = if (is.logical(y)) y else J(y), logit = num_or_null(logit),
                            group = enc_group(group), weights = num_or_null(weights), normwt = normwt,
                            smooth = smooth, logistic_cal = logistic.cal, g_group = g.group,
                            evaluate = evaluate, nmin = nmin),
              warnings = r$warnings)
  if (!is.null(r$error)) {
    out$error <- r$error
  } else if (is.list(r$value)) {
    v <- r$value
    out$group_stats <- enc_matrix(v$stats)
    out$quantiles <- enc_matrix(v$quantiles)
    out$cal_curves <- lapply(v$cal.curves, function(cc) list(x = J(cc$x), y = J(cc$y)))
  } else {
    nm <- names(r$value)
    nm[is.na(nm)] <- "NA"
    out$stats <- list(names = nm, values = J(r$value))
  }
  add(out)
}

sim <- function(seed, n, mu = 0, sd = 1.5, true_slope = 1, shift = 0, model_slope = 1) {
  set.seed(seed)
  lp <- rnorm(n, mu, sd)
  y <- rbinom(n, 1, plogis(true_slope * lp))
  p <- plogis(model_slope * lp + shift)
  list(p = p, y = y, lp = lp)
}

# ---- val.prob, ungrouped ----------------------------------------------------------
d <- sim(101, 200);                     vp("calibrated_n200", p = d$p, y = d$y)
d <- sim(102, 500);                     vp("calibrated_n500", p = d$p, y = d$y)
d <- sim(103, 300, model_slope = 2);    vp("overconfident", p = d$p, y = d$y)
d <- sim(104, 300, model_slope = 0.5);  vp("underconfident", p = d$p, y = d$y)
d <- sim(105, 300, shift = 1);          vp("too_high", p = d$p, y = d$y)
d <- sim(106, 300, shift = -1.2);       vp("too_low", p = d$p, y = d$y)
d <- sim(107, 800, mu = -4, sd = 1);    vp("rare_outcome", p = d$p, y = d$y)
d <- sim(108, 400, mu = 3.5, sd = 1);   vp("common_outcome", p = d$p, y = d$y)
d <- sim(109, 300);                     vp("rounded_2dp", p = round(d$p, 2), y = d$y)
d <- sim(110, 300);                     vp("rounded_1dp", p = round(d$p, 1), y = d$y)
d <- sim(111, 60);                      vp("ties_few_values", p = rep(c(0.1, 0.3, 0.5, 0.7, 0.9), 12), y = d$y)
d <- sim(112, 300, sd = 8);             vp("extreme_probs", p = d$p, y = d$y, note = "logits with sd 8: p within 1e-15 of 0 and 1")
d <- sim(113, 100);  pp <- d$p; pp[c(3, 7)] <- 0; pp[c(11, 19)] <- 1
vp("exact_zero_one", p = pp, y = d$y, note = "p of exactly 0 and 1: dropped from the logistic fit with a warning")
d <- sim(114, 250, sd = 2);             vp("logit_input", logit = d$lp * 0.8, y = d$y)
d <- sim(115, 200);                     vp("logit_input_large", logit = d$lp * 12, y = d$y)
d <- sim(116, 200); set.seed(1116);     vp("weights_ignored", p = d$p, y = d$y, weights = runif(200, 0.5, 2))
d <- sim(117, 200);                     vp("smooth_false", p = d$p, y = d$y, smooth = FALSE)
d <- sim(118, 200);                     vp("logistic_cal_false", p = d$p, y = d$y, logistic.cal = FALSE)
d <- sim(119, 200);                     vp("smooth_and_cal_false", p = d$p, y = d$y, smooth = FALSE, logistic.cal = FALSE)
d <- sim(120, 5);  y <- c(0, 1, 0, 1, 1); vp("tiny_n5", p = d$p, y = y)
d <- sim(121, 3);  y <- c(0, 1, 1);       vp("tiny_n3", p = d$p, y = y)
d <- sim(122, 10); y <- rep(0:1, 5);      vp("tiny_n10", p = d$p, y = y)
d <- sim(123, 4);  y <- c(1, 0, 0, 1);    vp("tiny_n4", p = d$p, y = y)
d <- sim(124, 5000);                    vp("large_n5000", p = d$p, y = d$y)
set.seed(125); vp("constant_p", p = rep(0.3, 50), y = rbinom(50, 1, 0.4), note = "one distinct p: val.prob's special branch")
set.seed(126); vp("constant_p_rare", p = rep(0.02, 80), y = c(1, rep(0, 79)))
set.seed(127); p <- sort(runif(40)); y <- as.numeric(p > 0.5)
vp("separated", p = p, y = y, note = "perfect separation: lrm.fit stops after maxit")
set.seed(128); p <- runif(40); y <- as.numeric(p > 0.5); y[c(1, 2)] <- 1 - y[c(1, 2)]
vp("nearly_separated", p = p, y = y)
d <- sim(129, 150); yy <- d$y; vp("y_logical", p = d$p, y = as.logical(yy))
d <- sim(130, 150); vp("y_coded_1_2", p = d$p, y = d$y + 1, note = "lrm.fit recodes y as a factor; val.prob's other statistics use the raw codes")
d <- sim(131, 150); set.seed(1131); yy <- sample(0:2, 150, TRUE); vp("y_three_levels", p = d$p, y = yy, note = "an ordinal fit: 19 statistics, the last unnamed")
d <- sim(132, 120); pp <- d$p; pp[c(5, 50)] <- NA; vp("p_with_na", p = pp, y = d$y, note = "NA rows are dropped")
d <- sim(133, 120); yy <- d$y; yy[7] <- NA; vp("y_with_na", p = d$p, y = yy)
d <- sim(134, 200, sd = 0.05); vp("narrow_range", p = d$p, y = d$y, note = "all p near 0.5")
set.seed(135); p <- c(rep(0.2, 30), rep(0.8, 30)); y <- rbinom(60, 1, p); vp("two_values", p = p, y = y)
d <- sim(136, 1000, sd = 3, model_slope = 1.7, shift = 0.4); vp("miscal_n1000", p = d$p, y = d$y)
d <- sim(137, 300); vp("float32_like", p = as.numeric(sprintf("%.7g", d$p)), y = d$y, note = "p rounded to float32-like 7 digits")

# ---- errors --------------------------------------------------------------------------
d <- sim(140, 20)
vp("err_lengths", p = d$p, y = d$y[1:19])
vp("err_n2", p = d$p[1:2], y = c(0, 1))
vp("err_all_zero", p = d$p, y = rep(0, 20))
vp("err_all_one", p = d$p, y = rep(1, 20))
pp <- d$p; pp[3] <- 1.2; vp("err_p_above_one", p = pp, y = d$y)
pp <- d$p; pp[3] <- -0.1; vp("err_p_negative", p = pp, y = d$y)

# ---- val.prob with group= (val.probg) -----------------------------------------------
d <- sim(150, 400); set.seed(1150); grp <- factor(sample(c("A", "B", "C"), 400, TRUE))
vp("group_factor", p = d$p, y = d$y, group = grp)
d <- sim(151, 300); set.seed(1151); grp <- sample(c("north", "south"), 300, TRUE)
vp("group_character", p = d$p, y = d$y, group = grp)
d <- sim(152, 400); set.seed(1152); grp <- rnorm(400)
vp("group_numeric_cut2", p = d$p, y = d$y, group = grp, note = "numeric group: cut2(group, g = g.group)")
d <- sim(153, 250); vp("group_true", p = d$p, y = d$y, group = TRUE, note = "group = TRUE: one group, Overall only")
d <- sim(154, 300); set.seed(1154); grp <- factor(sample(c("x", "y"), 300, TRUE)); w <- runif(300, 0.5, 3)
vp("group_weights", p = d$p, y = d$y, group = grp, weights = w)
d <- sim(155, 300); set.seed(1155); grp <- factor(sample(c("x", "y"), 300, TRUE)); w <- runif(300, 0.5, 3)
vp("group_weights_normwt", p = d$p, y = d$y, group = grp, weights = w, normwt = TRUE)
d <- sim(156, 200, model_slope = 2); set.seed(1156); grp <- factor(sample(c("a", "b"), 200, TRUE))
vp("group_evaluate_nmin", p = d$p, y = d$y, group = grp, evaluate = 50, nmin = 10)
d <- sim(157, 120); set.seed(1157); grp <- factor(sample(c("a", "b"), 120, TRUE))
vp("group_small_curves", p = round(d$p, 1), y = d$y, group = grp, note = "fewer distinct p than evaluate: curves at the distinct p")

# ---- Hosmer-Lemeshow (ResourceSelection::hoslem.test, as defined there) ------------------
hoslem.test <- function(x, y, g = 10) {
  DNAME <- paste(deparse(substitute(x)), deparse(substitute(y)), sep = ", ")
  METHOD <- "Hosmer and Lemeshow goodness of fit (GOF) test"
  yhat <- y
  y <- x
  qq <- unique(quantile(yhat, probs = seq(0, 1, 1/g)))
  cutyhat <- cut(yhat, breaks = qq, include.lowest = TRUE)
  observed <- xtabs(cbind("y0" = 1 - y, "y1" = y) ~ cutyhat)
  expected <- xtabs(cbind("yhat0" = 1 - yhat, "yhat1" = yhat) ~ cutyhat)
  chisq <- sum((observed - expected)^2 / expected)
  PVAL <- 1 - pchisq(chisq, g - 2)
  PARAMETER <- g - 2
  names(chisq) <- "X-squared"
  names(PARAMETER) <- "df"
  structure(list(statistic = chisq, parameter = PARAMETER, p.value = PVAL, method = METHOD,
                 data.name = DNAME, observed = observed, expected = expected), class = "htest")
}

hl <- function(id, y, p, g = 10, note = "") {
  r <- run(function() hoslem.test(y, p, g = g))
  out <- list(id = id, note = note, inputs = list(y = J(y), p = J(p), g = g), warnings = r$warnings)
  if (!is.null(r$error)) {
    out$error <- r$error
  } else {
    h <- r$value
    out$statistic <- J(h$statistic)
    out$parameter <- unname(h$parameter)
    out$p_value <- J(h$p.value)
    out$observed <- list(rownames = rownames(h$observed), values = unname(lapply(seq_len(nrow(h$observed)), function(i) J(h$observed[i, ]))))
    out$expected <- list(rownames = rownames(h$expected), values = unname(lapply(seq_len(nrow(h$expected)), function(i) J(h$expected[i, ]))))
    out$printed <- paste(capture.output(print(h)), collapse = "\n")
  }
  add_hl(out)
}
hl_cases <- list()
add_hl <- function(case) hl_cases[[length(hl_cases) + 1]] <<- case

d <- sim(201, 500);                   hl("hl_calibrated", d$y, d$p)
d <- sim(202, 500, model_slope = 2);  hl("hl_overconfident", d$y, d$p)
d <- sim(203, 500, shift = 0.8);      hl("hl_too_high", d$y, d$p)
d <- sim(204, 300);                   hl("hl_g5", d$y, d$p, g = 5)
d <- sim(205, 300);                   hl("hl_g20", d$y, d$p, g = 20)
d <- sim(206, 300);                   hl("hl_rounded_ties", d$y, round(d$p, 1), note = "tied quantiles: unique() merges groups, df stays g - 2")
d <- sim(207, 1000, mu = -3, sd = 1); hl("hl_rare", d$y, d$p)
d <- sim(208, 2000, sd = 2, model_slope = 1.3); hl("hl_large_miscal", d$y, d$p, note = "tiny p-value")
d <- sim(209, 40);                    hl("hl_small_n", d$y, d$p)
d <- sim(210, 100);                   hl("hl_constant_p", d$y, rep(0.4, 100), note = "one break: cut() reads it as a number of intervals")
d <- sim(211, 100);                   hl("hl_two_values", d$y, rep(c(0.2, 0.6), 50))

# ---- calibration hierarchy references: glm with an offset / slope, loess -------------
hier_cases <- list()
hier <- function(id, p, y) {
  lg <- qlogis(p)
  ok <- is.finite(lg)  # p of exactly 0 or 1 are left out of the logistic fits
  lgo <- lg[ok]; yo <- y[ok]
  f_int <- glm(yo ~ 1 + offset(lgo), family = binomial)
  f_slope <- glm(yo ~ lgo, family = binomial)
  grid <- seq(min(p), max(p), length = 50)
  ld <- loess(y ~ p, degree = 2, control = loess.control(surface = "direct", statistics = "exact"))
  pd <- predict(ld, data.frame(p = grid), se = TRUE)
  li <- loess(y ~ p, degree = 2)
  hier_cases[[length(hier_cases) + 1]] <<- list(
    id = id, inputs = list(p = J(p), y = J(y)),
    intercept = J(coef(f_int)), intercept_se = J(sqrt(diag(vcov(f_int)))),
    intercept_ci = J(confint.default(f_int)),
    slope_coef = J(coef(f_slope)), slope_se = J(sqrt(diag(vcov(f_slope)))),
    slope_ci = J(confint.default(f_slope)[2, ]),
    grid = J(grid), loess_direct_fit = J(pd$fit), loess_direct_se = J(pd$se.fit),
    loess_direct_s = J(ld$s), loess_default_fitted = J(fitted(li)),
    lowess_fit = J(lowess(p, y, iter = 0)$y), lowess_fit_iter3 = J(lowess(p, y)$y))
}
d <- sim(301, 400, model_slope = 1.5, shift = 0.3); hier("hier_miscal", d$p, d$y)
d <- sim(302, 250);                                 hier("hier_calibrated", d$p, d$y)
d <- sim(303, 600, mu = -2.5, sd = 1);              hier("hier_rare", d$p, d$y)
d <- sim(304, 300);                                 hier("hier_rounded", round(d$p, 2), d$y)

out <- list(
  generated_by = "tools/r-reference/make_valprob.R",
  r_version = R.version.string,
  rms_version = as.character(packageVersion("rms")),
  hmisc_version = as.character(packageVersion("Hmisc")),
  valprob = cases,
  hoslem = hl_cases,
  hierarchy = hier_cases)
writeLines(toJSON(out, auto_unbox = TRUE, digits = I(17), na = "string", null = "null", pretty = FALSE,
                  json_verbatim = TRUE),
           "tests/fixtures/valprob.json")
cat(length(cases), "val.prob cases,", length(hl_cases), "hoslem cases,", length(hier_cases), "hierarchy cases\n")
