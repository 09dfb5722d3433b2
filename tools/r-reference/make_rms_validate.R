# rms::validate.lrm and rms::calibrate (rms 6.5-0, R 4.2.2) after set.seed(), for
# calstats.clinical.validate / calibrate: the validate matrix, the calibration matrix and
# the printed output, on a data set with a strong and a weak predictor (and noise), with
# several B, the four resampling methods, a spline model, a small sample where some
# bootstrap fits fail, and an ordinal outcome.
# Run from the repository root: Rscript tools/r-reference/make_rms_validate.R
suppressMessages(library(rms))
source("tools/r-reference/fixture_json.R")

set.seed(4711)
n <- 200
data <- data.frame(strong = round(rnorm(n), 3), weak = round(rnorm(n), 3), noise = round(rnorm(n), 3),
                   age = round(rnorm(n, 55, 12)))
data$y <- rbinom(n, 1, plogis(-0.4 + 1.4 * data$strong + 0.15 * data$weak))
data$yo <- as.integer(cut(-0.4 + 1.2 * data$strong + rlogis(n), c(-Inf, -1, 0.7, Inf)))
data$wt <- round(runif(n, 0.5, 2), 2)
small <- data[1:36, ]
small$y <- rbinom(36, 1, plogis(2.5 * small$strong))

cases <- list()
matrix_json <- function(m) list(rownames = rownames(m), colnames = colnames(m),
                                values = enc(as.vector(unclass(m))))
add_validate <- function(id, fs, dat, seed, B, method = "boot", extra = "", args = "") {
  d <- get(dat)
  fit <- suppressWarnings(eval(parse(text = sprintf("lrm(%s, data = d, x = TRUE, y = TRUE%s)", fs, extra))))
  set.seed(seed)
  out <- capture.output(v <- eval(parse(text = sprintf("rms::validate(fit, B = %d, method = \"%s\"%s)",
                                                      B, method, args))))
  kept <- attr(v, "kept")
  cases[[length(cases) + 1]] <<- list(
    id = id, kind = "validate", formula = fs, data = dat, seed = seed, B = B, method = method, extra = extra,
    args = args, output = out, print = capture.output(print(v)), print_b3 = capture.output(print(v, B = 3)),
    matrix = matrix_json(v), kept = if (length(kept)) lapply(seq_len(nrow(kept)), function(i) as.vector(kept[i, ])),
    after = enc(runif(1)))  # the stream after the call
}
add_calibrate <- function(id, fs, dat, seed, B, method = "boot", args = "") {
  d <- get(dat)
  fit <- eval(parse(text = sprintf("lrm(%s, data = d, x = TRUE, y = TRUE)", fs)))
  set.seed(seed)
  txt <- if (method == "boot") sprintf("calibrate(fit, B = %d%s)", B, args) else
    sprintf("calibrate(fit, B = %d, method = \"%s\"%s)", B, method, args)
  out <- capture.output(cal <- eval(parse(text = txt)))
  m <- cal[, ]
  pr <- capture.output(rms:::print.calibrate.default(cal))
  cases[[length(cases) + 1]] <<- list(
    id = id, kind = "calibrate", formula = fs, data = dat, seed = seed, B = B, method = method, args = args,
    output = out, print_head = pr[seq_len(which(grepl("predy", pr))[1] - 1)],
    print_matrix = capture.output(print(m)), matrix = matrix_json(m),
    predicted = enc(attr(cal, "predicted")), after = enc(runif(1)))
}
add_validate("v_boot_40", "y ~ strong + weak + noise", "data", 1, 40)
add_validate("v_boot_200", "y ~ strong + weak + noise", "data", 2, 200)
add_validate("v_boot_10", "y ~ strong + weak + noise", "data", 3, 10)
add_validate("v_rcs", "y ~ rcs(age, 4) + strong + weak", "data", 4, 50)
add_validate("v_cv", "y ~ strong + weak + noise", "data", 5, 10, "crossvalidation")
add_validate("v_632", "y ~ strong + weak + noise", "data", 6, 60, ".632")
add_validate("v_rand", "y ~ strong + weak + noise", "data", 7, 20, "randomization")
add_validate("v_small", "y ~ strong + weak + noise", "small", 8, 40)
add_validate("v_ordinal", "yo ~ strong + weak", "data", 9, 30)
add_validate("v_weighted", "y ~ strong + weak", "data", 10, 30, extra = ", weights = wt")
add_validate("v_bw", "y ~ strong + weak + noise + rcs(age, 4)", "data", 21, 10, args = ", bw = TRUE")
add_validate("v_bw_p", "y ~ strong + weak + noise + rcs(age, 4)", "data", 22, 6,
             args = ", bw = TRUE, rule = \"p\", sls = 0.2")
add_validate("v_bw_interaction", "y ~ strong * weak + noise", "data", 23, 15, args = ", bw = TRUE")
add_validate("v_bw_individual", "y ~ strong + weak + noise + rcs(age, 4)", "data", 24, 8,
             args = ", bw = TRUE, type = \"individual\"")
add_calibrate("c_bw", "y ~ strong + weak + noise + rcs(age, 4)", "data", 25, 10, args = ", bw = TRUE")
add_calibrate("c_boot_40", "y ~ strong + weak + noise", "data", 11, 40)
add_calibrate("c_boot_200", "y ~ strong + weak + noise", "data", 12, 200)
add_calibrate("c_rcs", "y ~ rcs(age, 4) + strong + weak", "data", 13, 50)
add_calibrate("c_cv", "y ~ strong + weak + noise", "data", 14, 10, "crossvalidation")
add_calibrate("c_small", "y ~ strong + weak + noise", "small", 15, 40)
add_calibrate("c_ordinal", "yo ~ strong + weak", "data", 16, 30)

cols <- function(d) lapply(d, function(v) if (is.numeric(v) && !is.integer(v)) enc(v) else v)
out <- list(r_version = R.version.string, rms_version = as.character(packageVersion("rms")),
            data = cols(data), small = cols(small), cases = cases)
writeLines(jsonlite::toJSON(out, auto_unbox = TRUE, null = "null", json_verbatim = TRUE, digits = NA),
           "tests/fixtures/rms_validate.json")
