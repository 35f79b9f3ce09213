package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"log"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
)

const alphabet = "abcdefghijkmnpqrstuvwxyz23456789"

var slugPattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{3,32}$`)

type app struct {
	db  *pgxpool.Pool
	rdb *redis.Client
}

func randomSlug() string {
	b := make([]byte, 7)
	rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

func (a *app) create(w http.ResponseWriter, r *http.Request) {
	var in struct {
		URL       string     `json:"url"`
		Slug      string     `json:"slug"`
		ExpiresAt *time.Time `json:"expires_at"`
	}
	if json.NewDecoder(r.Body).Decode(&in) != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	if u, err := url.Parse(in.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		http.Error(w, "url must be http(s)", http.StatusBadRequest)
		return
	}
	if in.Slug == "" {
		in.Slug = randomSlug()
	} else if !slugPattern.MatchString(in.Slug) {
		http.Error(w, "bad slug", http.StatusBadRequest)
		return
	}
	_, err := a.db.Exec(r.Context(), `insert into links (slug, target, expires_at) values ($1, $2, $3)`, in.Slug, in.URL, in.ExpiresAt)
	if err != nil {
		http.Error(w, "slug taken", http.StatusConflict)
		return
	}
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(map[string]string{"slug": in.Slug})
}

func (a *app) redirect(w http.ResponseWriter, r *http.Request) {
	slug := r.PathValue("slug")
	var target string
	err := a.db.QueryRow(r.Context(), `select target from links where slug = $1 and (expires_at is null or expires_at > now())`, slug).Scan(&target)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	ref := "direct"
	if u, err := url.Parse(r.Referer()); err == nil && u.Host != "" {
		ref = u.Host
	}
	country := r.Header.Get("CF-IPCountry")
	if country == "" {
		country = "unknown"
	}
	pipe := a.rdb.Pipeline()
	pipe.HIncrBy(r.Context(), "clicks:"+slug, "total", 1)
	pipe.HIncrBy(r.Context(), "clicks:"+slug, "ref:"+ref, 1)
	pipe.HIncrBy(r.Context(), "clicks:"+slug, "country:"+country, 1)
	pipe.Exec(r.Context())
	http.Redirect(w, r, target, http.StatusFound)
}

func (a *app) stats(w http.ResponseWriter, r *http.Request) {
	counts, err := a.rdb.HGetAll(r.Context(), "clicks:"+r.PathValue("slug")).Result()
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	json.NewEncoder(w).Encode(counts)
}

func main() {
	db, err := pgxpool.New(context.Background(), os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	a := &app{db: db, rdb: redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})}
	http.HandleFunc("POST /links", a.create)
	http.HandleFunc("GET /links/{slug}/stats", a.stats)
	http.HandleFunc("GET /{slug}", a.redirect)
	log.Fatal(http.ListenAndServe(":8080", nil))
}
