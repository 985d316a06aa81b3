"""What a run says: reports and their formats (report, results, summary, run_reports), the failures a
target is known for (known_failures), comparing runs (rundiff), the compliance matrix and the site
(matrix, site).
"""
