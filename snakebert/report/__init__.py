"""The report's figures and summary table, and the files they are written to (the workflow's report targets)."""

REPORT_FILES = {
    "summary": "results/report/summary.html",
    "data": "results/report/data.svg",
    "training": "results/report/training.svg",
    "downstream": "results/report/downstream.svg",  # with fine-tuning tasks only
}
