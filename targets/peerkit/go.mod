module patchconf.dev/targets/peerkit

go 1.21
