module example.com/user-app

go 1.26.8

require (
	github.com/onsi/ginkgo/v2 v2.34.0
	github.com/onsi/gomega v1.44.0
	github.com/trapline/trapline v0.0.0
)

require (
	github.com/Masterminds/semver/v3 v3.4.0 // indirect
	github.com/bits-and-blooms/bitset v1.20.0 // indirect
	github.com/deckarep/golang-set/v2 v2.8.0 // indirect
	github.com/elazarl/goproxy v1.9.3 // indirect
	github.com/go-logr/logr v1.4.3 // indirect
	github.com/go-stack/stack v1.8.1 // indirect
	github.com/go-task/slim-sprig/v3 v3.0.0 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/google/pprof v0.0.0-20260402051712-545e8a4df936 // indirect
	github.com/mxschmitt/playwright-go v0.6401.0 // indirect
	github.com/nlnwa/whatwg-url v0.6.2 // indirect
	github.com/vektah/gqlparser/v2 v2.5.64 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/net v0.61.0 // indirect
	golang.org/x/sync v0.25.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.44.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
)

replace github.com/trapline/trapline => ../..
