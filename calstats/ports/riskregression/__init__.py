"""Ports of R's riskRegression package (2022.11.28): ``Score`` for a time-to-event outcome."""
