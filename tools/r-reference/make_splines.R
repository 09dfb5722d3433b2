#!/usr/bin/env Rscript
# R references for calstats.ports.stats.splines: splines::bs, splines::ns, their predict()
# methods and splines::splineDesign (R 4.2.2, base R + jsonlite).
#
# Each case records the call's arguments, R's matrix, the knots and Boundary.knots R stores,
# the warnings R gives, and predict(basis, newx) with its warnings; error cases record R's
# message. Numbers are written with sprintf("%.17g") (jsonlite's digits = NA stops at 15
# significant digits); NA/NaN/Inf as strings.
#
# Writes tests/fixtures/splines.json (run from the repository root):
#   Rscript tools/r-reference/make_splines.R
library(splines)
library(jsonlite)
source("tools/r-reference/fixture_json.R")
J <- json_num_str

M <- function(m) lapply(seq_len(nrow(m)), function(i) J(m[i, ]))

cases <- list()
add <- function(case) cases[[length(cases) + 1]] <<- case

# Evaluate a call, collecting warnings and the error message (if any).
run <- function(f, args) {
  w <- character()
  val <- withCallingHandlers(
    tryCatch(do.call(f, args), error = function(e) structure(list(msg = conditionMessage(e)), class = "rerr")),
    warning = function(cond) {
      w <<- c(w, conditionMessage(cond))
      invokeRestart("muffleWarning")
    })
  list(val = val, warnings = w)
}

# One bs/ns case: the call, its result, and predict() at newx.
basis_case <- function(id, fn, x, df = NULL, knots = NULL, degree = NULL, Bk = NULL,
                       intercept = FALSE, newx = NULL, flags = list()) {
  args <- list(x = x, intercept = intercept)
  if (!is.null(df)) args$df <- df
  if (!is.null(knots)) args$knots <- knots
  if (!is.null(degree)) args$degree <- degree
  if (!is.null(Bk)) args$Boundary.knots <- Bk
  r <- run(fn, args)
  case <- list(id = id, fn = fn, x = J(x), intercept = intercept, warnings = as.list(r$warnings))
  if (!is.null(df)) case$df <- df
  if (!is.null(knots)) case$knots <- J(knots)
  if (!is.null(degree)) case$degree <- degree
  if (!is.null(Bk)) case$boundary_knots <- J(Bk)
  case <- c(case, flags)
  if (inherits(r$val, "rerr")) {
    case$error <- r$val$msg
    add(case)
    return(invisible())
  }
  b <- r$val
  case$matrix <- M(unclass(b)[, , drop = FALSE])
  case$ncol <- ncol(b)
  case$knots_out <- J(attr(b, "knots"))
  case$boundary_out <- J(attr(b, "Boundary.knots"))
  case$degree_out <- attr(b, "degree")
  if (!is.null(newx)) {
    p <- run(predict, list(b, newx))
    case$newx <- J(newx)
    case$predict_warnings <- as.list(p$warnings)
    if (inherits(p$val, "rerr")) case$predict_error <- p$val$msg
    else case$predict <- M(unclass(p$val)[, , drop = FALSE])
  }
  add(case)
}

# One splineDesign case.
design_case <- function(id, knots, x, ord = 4, derivs = 0, outer.ok = FALSE) {
  r <- run(splineDesign, list(knots = knots, x = x, ord = ord, derivs = derivs, outer.ok = outer.ok))
  case <- list(id = id, fn = "splineDesign", knots = J(knots), x = J(x), ord = ord,
               derivs = J(derivs), outer_ok = outer.ok, warnings = as.list(r$warnings))
  if (inherits(r$val, "rerr")) case$error <- r$val$msg
  else case$matrix <- M(r$val)
  add(case)
}

newx_for <- function(x) {
  x <- x[!is.na(x)]
  r <- range(x)
  w <- diff(r)
  if (w == 0) w <- 1
  c(seq(r[1] - 0.4 * w, r[2] + 0.4 * w, length.out = 13), r, quantile(x, c(0.3, 0.7)))
}

# A. random x: n = 5..1000, df = 1..8, ns/bs of degree 1..3, with and without intercept
for (spec in list(c(1, 5), c(2, 10), c(3, 37), c(4, 200), c(5, 1000))) {
  seed <- spec[1]; n <- spec[2]
  set.seed(seed)
  x <- switch(seed, rnorm(n), runif(n, -3, 7), rexp(n), rnorm(n, 10, 3), runif(n))
  nx <- newx_for(x)
  dfs <- if (n >= 1000) c(4, 8) else 1:8
  for (df in dfs) {
    basis_case(sprintf("ns_n%d_df%d", n, df), "ns", x, df = df, newx = nx)
    basis_case(sprintf("bs_n%d_df%d", n, df), "bs", x, df = df, newx = nx)
    if (df %in% c(1, 2, 4, 7) && n < 1000) {
      basis_case(sprintf("ns_n%d_df%d_int", n, df), "ns", x, df = df, intercept = TRUE, newx = nx)
      basis_case(sprintf("bs_n%d_df%d_int", n, df), "bs", x, df = df, intercept = TRUE, newx = nx)
      basis_case(sprintf("bs1_n%d_df%d", n, df), "bs", x, df = df, degree = 1, newx = nx)
      basis_case(sprintf("bs2_n%d_df%d_int", n, df), "bs", x, df = df, degree = 2, intercept = TRUE,
                 newx = nx)
    }
  }
}

# B. ties: duplicated quantiles (tied knots), knots on a boundary knot
set.seed(11)
xt <- sample(1:4, 40, replace = TRUE)
for (df in c(5, 8)) {
  basis_case(sprintf("ns_ties_df%d", df), "ns", xt, df = df, newx = c(0, 1, 1.5, 2, 3.5, 4, 5))
  basis_case(sprintf("bs_ties_df%d", df), "bs", xt, df = df, newx = c(0, 1, 1.5, 2, 3.5, 4, 5))
  basis_case(sprintf("bs2_ties_df%d", df), "bs", xt, df = df, degree = 2, newx = c(0, 1, 2.5, 4, 5))
}
set.seed(12)
xz <- c(rep(0, 30), runif(10))
basis_case("ns_boundary_ties", "ns", xz, df = 5, newx = c(-0.5, 0, 0.3, 1, 1.5))
basis_case("bs_boundary_ties", "bs", xz, df = 6, newx = c(-0.5, 0, 0.3, 1, 1.5))
basis_case("bs1_boundary_ties", "bs", xz, df = 4, degree = 1, intercept = TRUE, newx = c(-0.5, 0, 0.3, 1))

# C. Boundary.knots given: narrower than the data (x outside), wider, all x outside
set.seed(13)
xb <- runif(50, 0, 10)
for (df in c(3, 4, 6)) {
  basis_case(sprintf("ns_bk_narrow_df%d", df), "ns", xb, df = df, Bk = c(8, 2), newx = newx_for(xb))
  basis_case(sprintf("bs_bk_narrow_df%d", df), "bs", xb, df = df, Bk = c(2, 8), newx = newx_for(xb))
  basis_case(sprintf("bs2_bk_narrow_df%d_int", df), "bs", xb, df = df, degree = 2, Bk = c(2, 8),
             intercept = TRUE, newx = newx_for(xb))
  basis_case(sprintf("ns_bk_wide_df%d", df), "ns", xb, df = df, Bk = c(-5, 15), newx = newx_for(xb))
  basis_case(sprintf("bs_bk_wide_df%d", df), "bs", xb, df = df, Bk = c(-5, 15), newx = newx_for(xb))
}
basis_case("bs_all_outside", "bs", 1:10, df = 6, Bk = c(20, 30), newx = c(15, 25, 35))
basis_case("ns_all_outside", "ns", 1:10, df = 4, Bk = c(20, 30), newx = c(15, 25, 35))

# D. knots given (sorted, unsorted, with df ignored), no knots at all
set.seed(14)
xk <- runif(30)
basis_case("ns_knots", "ns", xk, knots = c(0.2, 0.5, 0.9), newx = newx_for(xk))
basis_case("bs_knots", "bs", xk, knots = c(0.9, 0.2, 0.5), newx = newx_for(xk))
basis_case("bs_knots_df_ignored", "bs", xk, knots = c(0.3, 0.6), df = 8, intercept = TRUE, newx = newx_for(xk))
basis_case("ns_knots_bk", "ns", xk, knots = c(0.4), Bk = c(0.1, 0.8), intercept = TRUE, newx = newx_for(xk))
basis_case("ns_plain", "ns", xk, newx = newx_for(xk))
basis_case("bs_plain", "bs", xk, newx = newx_for(xk))
basis_case("bs_plain_deg2", "bs", xk, degree = 2, newx = newx_for(xk))

# E. missing values (NA rows) in x and in newx; float32-exact and pandas inputs
set.seed(15)
xn <- rnorm(25)
xn[c(3, 11, 25)] <- NA
basis_case("ns_na", "ns", xn, df = 4, newx = c(NA, -1, 0, NA, 3))
basis_case("bs_na", "bs", xn, df = 5, newx = c(NA, -1, 0, NA, 3))
basis_case("ns_na_int", "ns", xn, df = 3, intercept = TRUE, newx = c(NA, 0))
set.seed(16)
xf <- round(rnorm(60) * 256) / 256
basis_case("ns_float32", "ns", xf, df = 5, newx = c(-3, 0, 3), flags = list(float32 = TRUE))
basis_case("bs_float32", "bs", xf, df = 6, newx = c(-3, 0, 3), flags = list(float32 = TRUE))
xp <- xf
xp[c(2, 7)] <- NA
basis_case("ns_pandas", "ns", xp, df = 4, newx = c(-3, NA, 3), flags = list(pandas = TRUE))
basis_case("bs_pandas", "bs", xp, df = 4, degree = 2, newx = c(-3, NA, 3), flags = list(pandas = TRUE))

# F. odd inputs: one x, integer x, non-integer df, 'df' too small, infinite x
basis_case("ns_single", "ns", 3, newx = c(2, 3, 4))
basis_case("ns_single_neg", "ns", -3, newx = c(-4, -3, -2))
basis_case("ns_single_zero", "ns", 0)
basis_case("bs_single", "bs", 3)
basis_case("bs_int_df_frac", "bs", 1:10, df = 4.5, newx = c(0, 5.5, 11))
basis_case("ns_int_df_frac", "ns", 1:10, df = 3.5, newx = c(0, 5.5, 11))
basis_case("ns_df_small_int", "ns", 1:10, df = 1, intercept = TRUE, newx = c(0, 5))
basis_case("bs_df_small", "bs", 1:10, df = 2, newx = c(0, 5))
basis_case("bs2_df_small_int", "bs", 1:10, df = 1, degree = 2, intercept = TRUE, newx = c(0, 5))
basis_case("bs_inf", "bs", c(1, 2, Inf))
basis_case("bs_degree0", "bs", 1:10, degree = 0)
basis_case("bs_all_na", "bs", c(NA, NA))
basis_case("ns_inf_outside", "ns", c(1, 2, Inf), Bk = c(1, 2))
basis_case("ns_na_knot", "ns", 1:4, knots = c(2, NA), newx = c(0, 2.5))
basis_case("ns_na_knots_recycled", "ns", c(0, 5), knots = rep(NA, 4), Bk = c(1, 3))
basis_case("ns_na_knot_outside", "ns", c(0, 2, 5), knots = c(2, NA), Bk = c(1, 3))
basis_case("bs_na_knot", "bs", 1:4, knots = c(2, NA), newx = c(0, 2.5))
basis_case("ns_all_na", "ns", c(NA, NA))

# G. splineDesign: orders 1..4, derivatives, tied knots, boundary rule, outer.ok, errors
set.seed(21)
kn <- sort(runif(10))
xin <- c(kn[4], runif(20, kn[4], kn[7]), kn[7])
for (ord in 1:4) {
  kk <- kn[1:(2 * ord + 2)]
  xi <- c(kk[ord], runif(12, kk[ord], kk[length(kk) - ord + 1]), kk[length(kk) - ord + 1])
  for (d in 0:(ord - 1)) design_case(sprintf("sd_ord%d_deriv%d", ord, d), kk, xi, ord = ord, derivs = d)
}
design_case("sd_derivs_vector", kn, xin, ord = 4, derivs = c(0, 1, 2, 3))
design_case("sd_unsorted_knots", rev(kn), xin, ord = 4)
design_case("sd_tied_knots", c(0, 0, 0, 0, 0.3, 0.3, 0.5, 0.5, 0.5, 1, 1, 1, 1),
            c(0, 0.1, 0.3, 0.4, 0.5, 0.7, 1), ord = 4)
design_case("sd_tied_knots_d1", c(0, 0, 0, 0, 0.3, 0.3, 0.5, 0.5, 0.5, 1, 1, 1, 1),
            c(0, 0.1, 0.3, 0.4, 0.5, 0.7, 1), ord = 4, derivs = 1)
design_case("sd_tied_knots_d3", c(0, 0, 0, 0, 0.3, 0.3, 0.5, 0.5, 0.5, 1, 1, 1, 1),
            c(0, 0.1, 0.3, 0.4, 0.5, 0.7, 1), ord = 4, derivs = 3)
design_case("sd_outer_ok", kn, c(-1, kn[1], kn[2], xin[1:5], kn[9], kn[10], 2), ord = 4, outer.ok = TRUE)
design_case("sd_outer_ok_d2", kn, c(-1, kn[2], xin[1:5], kn[9], 2), ord = 3, derivs = 2, outer.ok = TRUE)
design_case("sd_outer_ok_inside", kn, xin, ord = 4, outer.ok = TRUE)
design_case("sd_outer_ok_few_knots", c(0, 1, 2), c(0.5, 1.5), ord = 3, outer.ok = TRUE)
design_case("sd_outer_ok_na", 1:10, c(4.5, NA, 0), ord = 4, outer.ok = TRUE)
design_case("sd_err_empty_knots", numeric(0), 1, ord = 4)
design_case("sd_err_derivs_long", 1:10, 5, ord = 4, derivs = c(0, 1))
design_case("sd_err_derivs_empty", 1:10, 5, ord = 4, derivs = integer(0))
design_case("sd_err_ord", 1:3, 2, ord = 4)
design_case("sd_err_ord0", 1:3, 2, ord = 0)
design_case("sd_err_need_knots", 1:6, 3.5, ord = 4)
design_case("sd_err_range", 1:10, c(4.5, 0), ord = 4)
design_case("sd_err_range_frac", c(0.25, 0.5, 1:8), c(4.5, 9.123456789), ord = 3)
design_case("sd_err_deriv_ord", 1:10, c(4.5, 5), ord = 4, derivs = 4)
design_case("sd_err_deriv_ord_i", 1:10, c(4.5, 5), ord = 4, derivs = c(3, 4))
design_case("sd_err_na_x", 1:10, c(4.5, NA), ord = 4)

out <- list(generator = "tools/r-reference/make_splines.R", r_version = R.version.string, cases = cases)
writeLines(toJSON(out, auto_unbox = TRUE, digits = NA, json_verbatim = TRUE, pretty = FALSE),
           "tests/fixtures/splines.json")
cat(sprintf("wrote %d cases to tests/fixtures/splines.json\n", length(cases)))
