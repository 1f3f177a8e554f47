"""my.cnf generation, validation and verification.

model.py    build a plan: rules + sizing, target-correct, durability guard, conflicts, memory budget;
            and the view model the template renders
sizing.py   named pure sizing functions (buffer pool, redo, I/O capacity, connections)
budget.py   the memory budget formula and fitting a configuration into a memory limit
profile.py  hardware profiles as synthetic snapshots (no server needed)
render.py   jinja2 rendering of templates/mycnf.cnf.j2 (StrictUndefined)
cnf.py      option-file parsing, includes, option -> variable mapping
compare.py  my.cnf value vs SHOW VARIABLES value ("2G" vs 2147483648, ON vs 1)
validate.py check a file against the catalogue and a real server binary
verify.py   compare a running server with a file
"""
