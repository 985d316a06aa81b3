"""Where expectations come from: judging cases on real Kubernetes (verify) and recording them (record).
"""
