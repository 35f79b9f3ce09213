package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/crypto/bcrypt"
)

type server struct {
	db     *pgxpool.Pool
	secret []byte
}

type tokens struct {
	Access  string `json:"access_token"`
	Refresh string `json:"refresh_token"`
	Expires int64  `json:"expires_in"`
}

func hashToken(t string) string { s := sha256.Sum256([]byte(t)); return hex.EncodeToString(s[:]) }

func (s *server) issue(ctx context.Context, userID int64, family string) (tokens, error) {
	claims := jwt.RegisteredClaims{Subject: strconv.FormatInt(userID, 10),
		ExpiresAt: jwt.NewNumericDate(time.Now().Add(15 * time.Minute))}
	access, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(s.secret)
	if err != nil {
		return tokens{}, err
	}
	buf := make([]byte, 32)
	rand.Read(buf)
	refresh := hex.EncodeToString(buf)
	_, err = s.db.Exec(ctx, `insert into refresh_tokens (token_hash, user_id, family, expires_at)
		values ($1, $2, coalesce(nullif($3, '')::uuid, gen_random_uuid()), now() + interval '30 days')`,
		hashToken(refresh), userID, family)
	return tokens{access, refresh, 900}, err
}

func (s *server) login(w http.ResponseWriter, r *http.Request) {
	var in struct{ Email, Password string }
	if json.NewDecoder(r.Body).Decode(&in) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	var id int64
	var hash string
	var locked *time.Time
	err := s.db.QueryRow(r.Context(), `select id, password_hash, locked_until from users where email = $1`,
		in.Email).Scan(&id, &hash, &locked)
	if err != nil || (locked != nil && locked.After(time.Now())) {
		http.Error(w, "invalid credentials", http.StatusUnauthorized)
		return
	}
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte(in.Password)) != nil {
		s.db.Exec(r.Context(), `update users set failed_logins = failed_logins + 1,
			locked_until = case when failed_logins + 1 >= 5 then now() + interval '15 minutes' end
			where id = $1`, id)
		s.db.Exec(r.Context(), `insert into audit_log (user_id, event) values ($1, 'login_failed')`, id)
		http.Error(w, "invalid credentials", http.StatusUnauthorized)
		return
	}
	s.db.Exec(r.Context(), `update users set failed_logins = 0, locked_until = null where id = $1`, id)
	s.db.Exec(r.Context(), `insert into audit_log (user_id, event) values ($1, 'login')`, id)
	t, err := s.issue(r.Context(), id, "")
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	json.NewEncoder(w).Encode(t)
}

func (s *server) refresh(w http.ResponseWriter, r *http.Request) {
	var in struct{ RefreshToken string `json:"refresh_token"` }
	json.NewDecoder(r.Body).Decode(&in)
	var userID int64
	var family string
	var revoked bool
	err := s.db.QueryRow(r.Context(), `select user_id, family::text, revoked from refresh_tokens
		where token_hash = $1 and expires_at > now()`, hashToken(in.RefreshToken)).Scan(&userID, &family, &revoked)
	if err != nil {
		http.Error(w, "invalid refresh token", http.StatusUnauthorized)
		return
	}
	if revoked { // reuse of a rotated token: revoke the whole family
		s.db.Exec(r.Context(), `update refresh_tokens set revoked = true where family = $1`, family)
		http.Error(w, "invalid refresh token", http.StatusUnauthorized)
		return
	}
	s.db.Exec(r.Context(), `update refresh_tokens set revoked = true where token_hash = $1`, hashToken(in.RefreshToken))
	t, err := s.issue(r.Context(), userID, family)
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	json.NewEncoder(w).Encode(t)
}

func main() {
	db, err := pgxpool.New(context.Background(), os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	s := &server{db: db, secret: []byte(os.Getenv("JWT_SECRET"))}
	http.HandleFunc("POST /login", s.login)
	http.HandleFunc("POST /refresh", s.refresh)
	log.Fatal(http.ListenAndServe(":8080", nil))
}
