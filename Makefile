# mnote — build, run and test. GNU make; recipes run in bash.
#
#   make run     set up (deps) and start the app
#   make test    set up and run every test (what .ci/run does)
#   make build   build/bin/mnote (the command line, no GTK), mnote-app (the window),
#                mnote-controlplane (+ mnote-testagent for the tests)
#   make package dist/: .deb, .rpm and .tar.gz (make package-test: install the .deb in a chroot;
#                make check-size: the installed size against its 26 MB budget)
#   make bench   Go benchmarks, bench/*/run.sh and the window's PSS
#   make install the app for one user under PREFIX (default ~/.local)
#   make deps    install missing system packages, download Go modules
#   make clean

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := build
MAKEFLAGS += --no-print-directory

GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)

# The same tags everywhere (changing tags invalidates the cgo build cache).
TAGS     := sqlite_fts5
# The app's build adds the tag for the installed WebKitGTK (webkit2_41 for 4.1,
# nothing for 4.0; scripts/webkit-tag.sh decides). `=`, not `:=`: it is asked
# when a recipe runs, after `make deps` installed the package (also within one
# `make deps build`). Override: make build WEBKIT_TAG= (4.0) or WEBKIT_TAG=webkit2_41.
WEBKIT_TAG = $(shell scripts/webkit-tag.sh)
comma    := ,
APP_TAGS  = desktop,production,$(TAGS)$(addprefix $(comma),$(WEBKIT_TAG))
LDFLAGS  := -w -s -X mnote/app/cli.Version=$(VERSION) -X mnote/desktop.Version=$(VERSION)

BIN     := build/bin
TIMED   := scripts/timed
TIMINGS := .cache/test-timings.txt

# A pinned Node.js, when scripts/node.sh had to fetch one (the system's is
# older than the UI build needs), comes first on PATH for every recipe.
export PATH := $(CURDIR)/.cache/node/bin:$(PATH)

# CI clones may lack a full git history.
ifeq ($(filter -buildvcs=%,$(GOFLAGS)),)
export GOFLAGS := $(strip $(GOFLAGS) -buildvcs=false)
endif

.PHONY: deps frontend build run test test-frontend bench clean

deps:
	@scripts/deps.sh

# The UI (Vite + Svelte) into frontend/dist, which the binary embeds.
frontend:
	@scripts/frontend.sh build

build: frontend
	@mkdir -p $(BIN)
	$(GO) build -tags $(TAGS) -ldflags "$(LDFLAGS)" -o $(BIN)/mnote .
	$(GO) build -tags $(APP_TAGS) -ldflags "$(LDFLAGS)" -o $(BIN)/mnote-app .
	$(GO) build -tags $(TAGS) -ldflags "-w -s -X main.Version=$(VERSION)" -o $(BIN)/mnote-controlplane ./cmd/mnote-controlplane
	$(GO) build -tags $(TAGS) -o $(BIN)/mnote-testagent ./cmd/mnote-testagent

run:
	@$(MAKE) deps
	@$(MAKE) build
	./$(BIN)/mnote

test:
	@mkdir -p $(dir $(TIMINGS)) && : >$(TIMINGS) && rm -rf $(REPORTS) && mkdir -p $(REPORTS)
	@export TIMINGS=$(TIMINGS) TEST_REPORTS=$(CURDIR)/$(REPORTS) MNOTE_REQUIRE_ALL=1; rc=0; agents=; \
	if $(TIMED) deps     $(MAKE) deps && \
	   { $(TIMED) agents scripts/agents.sh >$(REPORTS)/agents.log 2>&1 & agents=$$!; } && \
	   $(TIMED) ui-build scripts/frontend.sh build && \
	   $(TIMED) gofmt    scripts/check-gofmt.sh && \
	   $(TIMED) vet-app  $(MAKE) vet-app && \
	   $(TIMED) go-test  $(MAKE) go-test && \
	   { wait $$agents; r=$$?; agents=; cat $(REPORTS)/agents.log; ((r == 0)); } && \
	   $(TIMED) e2e-agents $(MAKE) e2e-agents && \
	   $(TIMED) build    $(MAKE) build && \
	   $(TIMED) size     $(MAKE) check-size && \
	   $(TIMED) window   e2e/window/run.sh && \
	   $(TIMED) win-chat e2e/window/chat.sh && \
	   $(TIMED) win-lost e2e/window/lostword.sh && \
	   $(TIMED) web-e2e  e2e/web/run.sh && \
	   $(TIMED) frontend $(MAKE) test-frontend; \
	then :; else rc=$$?; fi; \
	[[ -z $$agents ]] || wait $$agents || :; \
	printf '\n== timings ==\n'; cat $(TIMINGS); \
	if [[ -x $(TESTREPORT) ]]; then printf '\n== slowest tests ==\n'; $(TESTREPORT) slowest $(REPORTS) || :; fi; \
	if ((rc == 0)); then echo 'make test: all passed'; else echo 'make test: FAILED' >&2; fi; \
	exit $$rc

# make test's steps and where they keep their results: the agents' install
# runs beside the steps up to go-test (it waits on the network, they on the
# CPU; its output is shown when it is joined), and each suite writes a
# report into $(REPORTS) for the list of the slowest tests at the end
# (scripts/testreport).
REPORTS    := .cache/test-reports
TESTREPORT := .cache/bin/testreport

$(TESTREPORT): $(filter-out %_test.go,$(wildcard scripts/testreport/*.go))
	$(GO) build -o $@ ./scripts/testreport

# Every Go test, and go vet: -vet=all runs every check of `go vet` on every
# package and its test files, in the build of the tests (a package without
# tests is vetted too). go test's output reads as without -json; the JSON
# goes to $(REPORTS).
.PHONY: go-test e2e-agents
go-test: $(TESTREPORT)
	@mkdir -p $(REPORTS)
	env MNOTE_E2E_AGENTS=0 MNOTE_REQUIRE_POSTGRES=1 $(GO) test -json -vet=all -tags $(TAGS) -count=1 -timeout 8m ./... | $(TESTREPORT) go $(REPORTS)/go-test.gotest.json

# The published agents driven offline (scripts/agents.sh installs them);
# go-test has vetted the package.
e2e-agents: $(TESTREPORT)
	@mkdir -p $(REPORTS)
	env MNOTE_E2E_AGENTS=1 $(GO) test -json -vet=off -tags $(TAGS) -count=1 -timeout 6m ./e2e/agents/ | $(TESTREPORT) go $(REPORTS)/e2e-agents.gotest.json

# The window's packages, vetted with the WebKitGTK tag. Its own target so that
# $(APP_TAGS) is expanded when this recipe starts: inside `make test`, whose one
# recipe make expands before its first line (`make deps`) runs, the tag would be
# asked before deps installed WebKitGTK (a fresh machine then vets against 4.0).
.PHONY: vet-app
vet-app:
	$(GO) vet -tags $(APP_TAGS) . ./desktop

# Type-checks the UI and runs its vitest suite.
test-frontend:
	@scripts/frontend.sh test

bench: build
	$(GO) test -tags $(TAGS) -run '^$$' -bench . ./...
	e2e/window/pss.sh
	@for s in bench/*/run.sh; do \
		[[ -f $$s ]] || continue; \
		echo "==> $$s"; bash "$$s"; \
	done

clean:
	rm -rf $(BIN) $(DIST) e2e/window/out bench/out $(TIMINGS) $(REPORTS) $(TESTREPORT)

# dist/: mnote_*.deb and mnote-*.rpm (nfpm, one configuration: build/package)
# and a portable mnote-*.tar.gz with install.sh for ~/.local. Depends follow
# the WebKitGTK the window was built against (WEBKIT_TAG).
DIST := dist
.PHONY: package package-test check-size
package: build
	@rm -f $(DIST)/mnote[_-]*
	cd build/package && $(GO) run . -root ../.. -version '$(VERSION)' -webkit $(if $(WEBKIT_TAG),4.1,4.0) -out ../../$(DIST)
	@ls -l $(DIST) $(BIN)/mnote $(BIN)/mnote-app

# The installed app's size against its budget (build/package/main.go:
# maxInstalled), without packaging; make package checks it too.
check-size:
	cd build/package && $(GO) run . -root ../.. -check-size

# Slow (minutes, root): installs the .deb in a fresh Debian chroot with apt,
# starts the installed window under Xvfb and screenshots it, runs
# `mnote --version` and one headless turn with the test agent, removes the
# package. Not part of `make test`.
package-test: package
	scripts/package-test.sh

# For one user: build/bin/mnote to $(PREFIX)/bin, the icon and the .desktop
# file (Exec = the installed binary) to $(PREFIX)/share. PREFIX=$HOME/.local
# unless given; DESTDIR stages for packagers. Uninstall keeps your data.
PREFIX ?= $(HOME)/.local
.PHONY: install uninstall
install: build
	@PREFIX='$(PREFIX)' DESTDIR='$(DESTDIR)' scripts/install.sh install

uninstall:
	@PREFIX='$(PREFIX)' DESTDIR='$(DESTDIR)' scripts/install.sh uninstall
