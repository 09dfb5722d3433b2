# mgcv's outer-iteration warnings on small, nearly degenerate binomial data, for
# tests/test_gam.py (calstats.ports.mgcv.gam replays mgcv's newton, warnings included).
# Run from the repository root:  Rscript tools/r-reference/make_gam_warnings.R
# Writes tests/fixtures/gam_warnings.json: the first seeds (of the designs below) whose fit
# ends with each of newton's two warnings.
suppressPackageStartupMessages({ library(mgcv); library(jsonlite) })
source("tools/r-reference/fixture_json.R")
J <- json_num_null
want <- c(iter = "Iteration limit reached without full convergence - check carefully",
          step = "Fitting terminated with step failure - check results carefully")
found <- list()
for (seed in 1:400) {
  if (length(found) == length(want)) break
  set.seed(seed)
  n <- 40
  x <- rnorm(n)
  y <- rbinom(n, 1, if (seed %% 2) 0.05 else plogis(8 * x))
  if (length(unique(y)) < 2) next
  method <- if (seed %% 3) "REML" else "GCV.Cp"
  r <- capture_all(gam(y ~ s(x), family = binomial, method = method))
  for (k in names(want)) {
    if (is.null(found[[k]]) && want[[k]] %in% r$warnings) {
      f <- r$value
      found[[k]] <- list(seed = seed, method = method, x = J(x), y = J(y), sp = J(f$sp),
                         iter = f$outer.info$iter, fitted = J(fitted(f)), warnings = r$warnings)
    }
  }
}
writeLines(toJSON(found, auto_unbox = TRUE, json_verbatim = TRUE, digits = NA),
           "tests/fixtures/gam_warnings.json")
cat("found:", names(found), "\n")
