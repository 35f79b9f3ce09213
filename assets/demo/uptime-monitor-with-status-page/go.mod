module example.com/uptime

go 1.22

require modernc.org/sqlite v1.30.1
