"""The local control plane: building (gobuild), starting and stopping kube-apiserver and etcd
(apiserver, pytest_apiserver), and a live cluster's connection (live_cluster).
"""
