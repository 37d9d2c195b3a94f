package fanout

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// cluster is a set of mnote-controlplane serve processes on one store.
type cluster struct {
	urls  []string
	procs []*instance
}

type instance struct {
	cmd    *exec.Cmd
	exited chan struct{}
	log    string
	once   sync.Once
}

// startCluster starts n servers of binary on db; logs go to dir.
func startCluster(ctx context.Context, binary, db, dir string, n int, leaseTTL time.Duration) (*cluster, error) {
	c := &cluster{}
	for i := range n {
		url, inst, err := startInstance(ctx, binary, db, filepath.Join(dir, fmt.Sprintf("server-%d.log", i)), leaseTTL)
		if err != nil {
			c.stop()
			return nil, fmt.Errorf("server %d: %w", i, err)
		}
		c.urls = append(c.urls, url)
		c.procs = append(c.procs, inst)
	}
	return c, nil
}

func startInstance(ctx context.Context, binary, db, logPath string, leaseTTL time.Duration) (string, *instance, error) {
	logf, err := os.Create(logPath)
	if err != nil {
		return "", nil, err
	}
	defer logf.Close() // the child has its own descriptor
	cmd := exec.Command(binary, "serve", "--addr", "127.0.0.1:0", "--db", db, "--rate", "0",
		"--failed-auth-per-minute", "-1", "--lease-ttl", leaseTTL.String(), "--log-format", "json")
	cmd.Stderr = logf
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("start %s: %w", binary, err)
	}
	inst := &instance{cmd: cmd, exited: make(chan struct{}), log: logPath}
	line, rerr := bufio.NewReader(out).ReadString('\n')
	go func() { cmd.Wait(); close(inst.exited) }()
	i := strings.Index(line, "http://")
	if rerr != nil || i < 0 {
		inst.kill()
		return "", nil, fmt.Errorf("server did not start: %q %v (log: %s)", line, rerr, logPath)
	}
	url := strings.TrimSpace(line[i:])
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/healthz", nil)
	if err != nil {
		inst.kill()
		return "", nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		inst.kill()
		return "", nil, fmt.Errorf("server at %s not healthy: %v (log: %s)", url, err, logPath)
	}
	resp.Body.Close()
	return url, inst, nil
}

// kill ends the process at once (SIGKILL: no shutdown, no goodbye to its
// clients or the database) and waits for it.
func (i *instance) kill() {
	i.once.Do(func() {
		_ = i.cmd.Process.Signal(syscall.SIGKILL)
		<-i.exited
	})
}

// stop ends every server still running: SIGTERM, then SIGKILL after 30 s.
func (c *cluster) stop() error {
	var errs []error
	for _, p := range c.procs {
		select {
		case <-p.exited:
			continue
		default:
		}
		p.once.Do(func() {
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-p.exited:
				if !p.cmd.ProcessState.Success() {
					errs = append(errs, fmt.Errorf("server exit after SIGTERM: %s (log: %s)", p.cmd.ProcessState, p.log))
				}
			case <-time.After(30 * time.Second):
				_ = p.cmd.Process.Signal(syscall.SIGKILL)
				<-p.exited
				errs = append(errs, fmt.Errorf("server still running 30 s after SIGTERM (log: %s)", p.log))
			}
		})
	}
	return errors.Join(errs...)
}
