"""my.cnf generation, validation and verification (the sizing and the memory model are the rules':
advisor.rules.sizers, advisor.rules.sizing, advisor.rules.memory; the text is advisor.render.mycnf).

plan.py     build a plan from a snapshot and its audit: rule recommendations, sizers, target-correct
            values, the durability guard, conflicts, the memory budget
model.py    the plan's data (Plan, Setting, MycnfOptions), adapting a line to the target, resolving conflicts
profile.py  hardware profiles as synthetic snapshots (no server needed)
cnf.py      option-file parsing, includes, option -> variable mapping
compare.py  my.cnf value vs SHOW VARIABLES value ("2G" vs 2147483648, ON vs 1)
validate.py check a file against the catalogue and a real server binary (trial.py starts it)
verify.py   compare a running server with a file
"""
