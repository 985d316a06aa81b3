module patchconf.dev/targets/peers/evanphx-json-patch-v5

go 1.21

require github.com/evanphx/json-patch/v5 v5.9.11
