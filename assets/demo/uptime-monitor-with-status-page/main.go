package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"html/template"
	"log"
	"net/http"
	"net/smtp"
	"os"
	"sync"
	"time"

	_ "modernc.org/sqlite"
)

type Check struct {
	Name     string `json:"name"`
	URL      string `json:"url"`
	Interval int    `json:"interval_seconds"`
}

type Row struct {
	Name      string
	Up        bool
	LatencyMs int64
	Uptime    float64
}

var (
	db       *sql.DB
	failures = map[string]int{}
	mu       sync.Mutex
)

func probe(c Check) (bool, time.Duration) {
	client := http.Client{Timeout: 10 * time.Second}
	start := time.Now()
	res, err := client.Get(c.URL)
	if err != nil {
		return false, time.Since(start)
	}
	res.Body.Close()
	return res.StatusCode < 500, time.Since(start)
}

func alert(c Check, up bool) {
	state := "DOWN"
	if up {
		state = "RECOVERED"
	}
	msg := fmt.Sprintf("%s %s (%s)", c.Name, state, c.URL)
	if hook := os.Getenv("ALERT_WEBHOOK"); hook != "" {
		body, _ := json.Marshal(map[string]string{"text": msg})
		http.Post(hook, "application/json", bytes.NewReader(body))
	}
	if to := os.Getenv("ALERT_EMAIL"); to != "" {
		auth := smtp.PlainAuth("", os.Getenv("SMTP_USER"), os.Getenv("SMTP_PASSWORD"), os.Getenv("SMTP_HOST"))
		smtp.SendMail(os.Getenv("SMTP_HOST")+":587", auth, os.Getenv("SMTP_USER"), []string{to},
			[]byte("Subject: "+msg+"\r\n\r\n"+msg+"\r\n"))
	}
}

func watch(c Check) {
	for range time.Tick(time.Duration(c.Interval) * time.Second) {
		up, latency := probe(c)
		db.Exec(`insert into results (name, up, latency_ms, at) values (?, ?, ?, ?)`, c.Name, up, latency.Milliseconds(), time.Now().Unix())
		mu.Lock()
		before := failures[c.Name]
		if up {
			failures[c.Name] = 0
		} else {
			failures[c.Name]++
		}
		after := failures[c.Name]
		mu.Unlock()
		if after == 2 || (up && before >= 2) { // alert on the second failure in a row, and on recovery
			alert(c, up)
		}
	}
}

func statusPage(tpl *template.Template) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rows, err := db.Query(`select name,
			(select up from results r2 where r2.name = r.name order by at desc limit 1),
			(select latency_ms from results r2 where r2.name = r.name order by at desc limit 1),
			100.0 * avg(up) from results r where at > ? group by name order by name`, time.Now().Add(-24*time.Hour).Unix())
		if err != nil {
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}
		defer rows.Close()
		var out []Row
		for rows.Next() {
			var row Row
			rows.Scan(&row.Name, &row.Up, &row.LatencyMs, &row.Uptime)
			out = append(out, row)
		}
		tpl.Execute(w, out)
	}
}

func main() {
	var err error
	if db, err = sql.Open("sqlite", "uptime.sqlite"); err != nil {
		log.Fatal(err)
	}
	db.Exec(`create table if not exists results (name text, up bool, latency_ms int, at int)`)
	var checks []Check
	raw, err := os.ReadFile("checks.json")
	if err != nil || json.Unmarshal(raw, &checks) != nil {
		log.Fatal("checks.json: ", err)
	}
	for _, c := range checks {
		go watch(c)
	}
	http.HandleFunc("/", statusPage(template.Must(template.ParseFiles("templates/status.html"))))
	log.Fatal(http.ListenAndServe(":8080", nil))
}
