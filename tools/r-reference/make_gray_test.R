#!/usr/bin/env Rscript
# R references for Gray's test in calstats.clinical.cuminc (R 4.2.2, cmprsk 2.2-11):
# cmprsk::cuminc(ftime, fstatus, group, strata, rho) -- every curve (time, est, var), the
# Tests matrix (stat, pv, df), timepoints at given times and print.cuminc's text.
#
# Data: rounded times (ties, censorings at event times), two and three groups (numeric codes
# out of order, letters), two and three causes, a cause absent from a group, a group whose
# follow-up ends early, two strata, rho = 0, 0.5 and -1, and a case where qr(V) is
# rank deficient (stat = -1). Run from the repository root:
#   Rscript tools/r-reference/make_gray_test.R
# Writes tests/fixtures/gray_test.json.
suppressPackageStartupMessages({
  library(cmprsk)
  library(jsonlite)
})
stopifnot(packageVersion("cmprsk") == "2.2.11")
source("tools/r-reference/fixture_json.R")
J <- json_num_str
invisible(Sys.setlocale("LC_COLLATE", "C"))

set.seed(20251128)
mk <- function(n, ng, nc, digits = 0) {
  g <- sample(seq_len(ng), n, replace = TRUE)
  t <- round(rexp(n, 0.1 * g^0.5), digits) + 1
  e <- ifelse(runif(n) < 0.25, 0L, sample(seq_len(nc), n, replace = TRUE, prob = rev(seq_len(nc))))
  list(time = t, event = e, group = g)
}
data <- list()
data$two <- mk(120, 2, 2)
data$three <- mk(150, 3, 3, digits = 1)
data$three$group <- c(3, 1, 2)[data$three$group]       # codes out of order
data$letters <- mk(90, 3, 2)
data$letters$group <- c("b", "a", "c")[data$letters$group]
data$strata <- mk(160, 2, 2)
data$strata$strata <- sample(1:2, 160, replace = TRUE)
# cause 2 never occurs in group 2; group 3's follow-up ends early
d <- mk(100, 3, 2)
d$event[d$group == 2 & d$event == 2] <- 1L
d$time[d$group == 3] <- pmin(d$time[d$group == 3], 4)
data$uneven <- d
# two groups that never overlap in time for cause 1 failures: a degenerate variance
data$tiny <- list(time = c(1, 2, 3, 4, 5, 6), event = c(1, 0, 2, 0, 2, 0), group = c(1, 1, 1, 2, 2, 2))
# cause 1 fails only in stratum 1, which holds group 1 alone: V = 0, qr(V) has rank 0, stat = -1
data$singular <- list(time = c(1, 2, 3, 4, 2, 3, 5, 6, 7, 8), event = c(1, 1, 0, 1, 2, 0, 2, 0, 2, 0),
                      group = c(1, 1, 1, 1, 1, 2, 2, 1, 2, 2), strata = c(1, 1, 1, 1, 2, 2, 2, 2, 2, 2))

case <- function(id, dn, times, rho = 0, strata = FALSE) {
  d <- data[[dn]]
  f <- if (strata) cuminc(d$time, d$event, d$group, d$strata, rho = rho) else
    cuminc(d$time, d$event, d$group, rho = rho)
  curves <- f[names(f) != "Tests"]
  tp <- timepoints(f, times)
  list(id = id, data = dn, rho = rho, strata = strata, times = J(times), names = names(curves),
       curves = lapply(curves, function(c) list(time = J(c$time), est = J(c$est), var = J(c$var))),
       tests = list(causes = rownames(f$Tests), stat = J(f$Tests[, "stat"]), pv = J(f$Tests[, "pv"]),
                    df = J(f$Tests[, "df"])),
       tp_est = lapply(seq_len(nrow(tp$est)), function(i) J(tp$est[i, ])),
       tp_var = lapply(seq_len(nrow(tp$var)), function(i) J(tp$var[i, ])),
       print = capture.output(print(f)))
}
cases <- list(case("two", "two", c(2, 5, 10, 20)), case("two rho 0.5", "two", c(3, 8), rho = 0.5),
              case("three", "three", c(1.5, 4, 9.5)), case("three rho -1", "three", c(2, 6), rho = -1),
              case("letters", "letters", c(3, 6)), case("strata", "strata", c(4, 12), strata = TRUE),
              case("uneven", "uneven", c(2, 3, 6)), case("tiny", "tiny", c(2, 5)),
              case("singular", "singular", c(2, 6), strata = TRUE))
out <- list(data = lapply(data, enc), cases = cases)
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE, null = "null", na = "null", pretty = FALSE,
                  json_verbatim = TRUE), "tests/fixtures/gray_test.json")
