module patchconf.dev/targets/peers/evanphx-json-patch-v5

go 1.21

require (
	github.com/evanphx/json-patch/v5 v5.9.11
	patchconf.dev/targets/peerkit v0.0.0
)

replace patchconf.dev/targets/peerkit => ../../peerkit
