"""Where expectations come from: judging cases on real Kubernetes (verify), recording them (record),
and the pull-request check (prcheck).
"""
