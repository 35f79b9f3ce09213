// Package scheduler runs jobs on cron expressions with jittered retries and no overlap.
package scheduler

import (
	"context"
	"log"
	"math/rand"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/robfig/cron/v3"
)

var (
	runs = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "scheduler_runs_total", Help: "Job runs by outcome."},
		[]string{"job", "outcome"})
	duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "scheduler_run_seconds", Help: "Job run time."},
		[]string{"job"})
)

func init() { prometheus.MustRegister(runs, duration) }

// Job is one scheduled task.
type Job struct {
	Name       string
	Spec       string // five-field cron expression, e.g. "*/5 * * * *"
	Run        func(ctx context.Context) error
	MaxRetries int
	BaseDelay  time.Duration
	Timeout    time.Duration
}

type Scheduler struct {
	cron    *cron.Cron
	mu      sync.Mutex
	running map[string]bool
}

func New() *Scheduler {
	return &Scheduler{cron: cron.New(), running: map[string]bool{}}
}

// Backoff is the delay before retry n (0-based): base·2ⁿ with ±50% jitter.
func Backoff(base time.Duration, n int) time.Duration {
	d := base << n
	return d/2 + time.Duration(rand.Int63n(int64(d)+1))
}

func (s *Scheduler) Add(job Job) error {
	_, err := s.cron.AddFunc(job.Spec, func() { s.execute(job) })
	return err
}

func (s *Scheduler) execute(job Job) {
	s.mu.Lock()
	if s.running[job.Name] { // the previous run is still going: skip, never overlap
		s.mu.Unlock()
		runs.WithLabelValues(job.Name, "skipped").Inc()
		return
	}
	s.running[job.Name] = true
	s.mu.Unlock()
	defer func() { s.mu.Lock(); delete(s.running, job.Name); s.mu.Unlock() }()

	for attempt := 0; ; attempt++ {
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), job.Timeout)
		err := job.Run(ctx)
		cancel()
		duration.WithLabelValues(job.Name).Observe(time.Since(start).Seconds())
		if err == nil {
			runs.WithLabelValues(job.Name, "ok").Inc()
			return
		}
		if attempt >= job.MaxRetries {
			runs.WithLabelValues(job.Name, "failed").Inc()
			log.Printf("job %s failed after %d attempts: %v", job.Name, attempt+1, err)
			return
		}
		runs.WithLabelValues(job.Name, "retried").Inc()
		time.Sleep(Backoff(job.BaseDelay, attempt))
	}
}

func (s *Scheduler) Start()                    { s.cron.Start() }
func (s *Scheduler) Stop() context.Context      { return s.cron.Stop() }
