"""Ports of R's prodlim package (2019.11.13): the product-limit estimators riskRegression calls."""
