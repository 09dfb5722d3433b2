"""Ports of R's cmprsk package (2.2-11): ``cuminc`` and ``timepoints``."""
