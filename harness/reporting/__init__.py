"""What a run says: reports and their formats (report, resultlog, summary, run_reports), comparing runs
(rundiff), the compliance matrix and the site (matrix, site), CI (action).
"""
