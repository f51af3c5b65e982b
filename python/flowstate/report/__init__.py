"""Reports of output folders: report.html (report.py), its figures (figures.py), the results.json
of any output folder (folder_results.py), the input files read and checked first (input_files.py)."""
