module example.com/authsvc

go 1.22

require (
	github.com/golang-jwt/jwt/v5 v5.2.1
	github.com/jackc/pgx/v5 v5.6.0
	golang.org/x/crypto v0.24.0
)
