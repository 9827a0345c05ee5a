// Package ci holds the tests of the CI configuration (.github/workflows): the workflows lint clean with
// actionlint, and the pull-request shards' label filters together select every spec `make test` runs,
// each exactly once. It has no code of its own.
package ci
