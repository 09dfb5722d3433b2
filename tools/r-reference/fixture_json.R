# Shared by the fixture generators (source("tools/r-reference/fixture_json.R") from the
# repository root). jsonlite writes at most 15 significant digits, so doubles go out
# verbatim with sprintf("%.17g") as pre-encoded JSON (toJSON(..., json_verbatim = TRUE)).

# A numeric vector as a JSON array, NA and NaN as null.
json_num_null <- function(x) {
  x <- as.numeric(unname(x))
  s <- sprintf("%.17g", x)
  s[is.na(x)] <- "null"
  structure(paste0("[", paste(s, collapse = ","), "]"), class = "json")
}

# A numeric vector as a JSON array, R's NA, NaN, Inf and -Inf as those strings.
json_num_str <- function(x) {
  x <- as.numeric(unname(x))
  s <- sprintf("%.17g", x)
  s[is.na(x)] <- '"NA"'
  s[is.nan(x)] <- '"NaN"'
  s[!is.na(x) & x == Inf] <- '"Inf"'
  s[!is.na(x) & x == -Inf] <- '"-Inf"'
  structure(paste0("[", paste(s, collapse = ","), "]"), class = "json")
}

# Numbers (recursively through lists) encoded with json_num_null; strings and NULL kept.
enc <- function(v) {
  if (is.null(v) || is.character(v)) return(v)
  if (is.list(v)) return(lapply(v, enc))
  if (is.numeric(v) || is.logical(v)) return(json_num_null(v))
  v
}

# The value of expr with the texts of the messages and warnings it signalled (muffled).
capture_all <- function(expr) {
  msgs <- character(0); warns <- character(0)
  val <- withCallingHandlers(expr,
    message = function(m) { msgs <<- c(msgs, sub("\n$", "", conditionMessage(m))); invokeRestart("muffleMessage") },
    warning = function(w) { warns <<- c(warns, conditionMessage(w)); invokeRestart("muffleWarning") })
  list(value = val, messages = msgs, warnings = warns)
}
