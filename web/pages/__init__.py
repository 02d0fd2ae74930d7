"""The HTML pages for people (Post/Redirect/Get, no JavaScript needed).

Modules: views.py (the form and the job page: a new page's view goes here, its template in
../templates/) · forms.py (the form's fields, the options they make, each error under its
field) · jobtext.py (what the job page says about a job, in the page's language) ·
compose.py (the compose form and a compose job's page, listing the puzzles it found).
"""
