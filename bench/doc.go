// Package bench measures what trapline costs. Its measurements are Go benchmarks and a recorder that
// writes bench/results.json; `make bench` runs them. Targets live here, never in timed tests.
package bench
