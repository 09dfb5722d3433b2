# Per-bin binomial intervals of the reliability diagram, from R:
#   Clopper-Pearson: binom.test(x, n, conf.level = level)$conf.int
#   Wilson:          Hmisc::binconf(x, n, alpha = signif(1 - level, 15), method = "wilson")  (alpha = 0.05)
#   Jeffreys:        qbeta(c(a/2, 1 - a/2), x + 1/2, n - x + 1/2), a = 1 - level
# Non-integer (x, n), the effective sizes under case weights, use the same formulas
# (binom.test needs integers, so its qbeta calls are written out).
# Usage: Rscript tools/r-reference/make_binom.R > tests/fixtures/binom_intervals.json
library(jsonlite)
pairs <- list(c(0, 1), c(1, 1), c(0, 10), c(1, 10), c(9, 10), c(10, 10), c(3, 7), c(50, 200),
              c(1, 2), c(0, 5), c(5, 5), c(17, 1000), c(999, 1000), c(2, 3), c(123, 456))
frac <- list(c(2.5, 7.3), c(0, 3.2), c(4.1, 4.1), c(1, 1.7), c(0.6, 1.6))
cases <- list()
for (level in c(0.95, 0.9, 0.5)) {
  a <- 1 - level
  for (xn in pairs) {
    x <- xn[1]; n <- xn[2]
    cp <- as.numeric(binom.test(x, n, conf.level = level)$conf.int)
    wi <- as.numeric(Hmisc::binconf(x, n, alpha = signif(a, 15), method = "wilson")[1, c("Lower", "Upper")])
    je <- qbeta(c(a / 2, 1 - a / 2), x + 0.5, n - x + 0.5)
    cases[[length(cases) + 1]] <- list(x = x, n = n, level = level, integer = TRUE,
                                       clopper_pearson = cp, wilson = wi, jeffreys = je)
  }
  for (xn in frac) {
    x <- xn[1]; n <- xn[2]; h <- a / 2
    cp <- c(if (x == 0) 0 else qbeta(h, x, n - x + 1), if (x == n) 1 else qbeta(1 - h, x + 1, n - x))
    wi <- as.numeric(Hmisc::binconf(x, n, alpha = signif(a, 15), method = "wilson")[1, c("Lower", "Upper")])
    je <- qbeta(c(h, 1 - h), x + 0.5, n - x + 0.5)
    cases[[length(cases) + 1]] <- list(x = x, n = n, level = level, integer = FALSE,
                                       clopper_pearson = cp, wilson = wi, jeffreys = je)
  }
}
cat(toJSON(list(generator = "tools/r-reference/make_binom.R", R = R.version.string,
                Hmisc = as.character(packageVersion("Hmisc")), cases = cases),
           digits = NA, auto_unbox = TRUE, pretty = FALSE))
