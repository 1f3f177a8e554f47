"""jinja2 templates for my.cnf and checklist output; shipped as advisor.templates."""
