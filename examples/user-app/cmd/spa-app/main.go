// Command spa-app runs the example's single-page app on an address, for trapline run --upstream
// (docs/your-app.md, "A single-page app"); its one account is -user with $SPA_APP_PASSWORD:
//
//	SPA_APP_PASSWORD=... go run ./cmd/spa-app -listen 127.0.0.1:8092 &
//	trapline run --traps-dir spapack --upstream spa.example.test=http://127.0.0.1:8092
package main

import (
	"flag"
	"log"
	"net/http"
	"os"

	"example.com/user-app/spa"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8092", "the address to listen on (loopback)")
	user := flag.String("user", "operatore", "the account's user name (its password: $SPA_APP_PASSWORD)")
	flag.Parse()
	pw := os.Getenv("SPA_APP_PASSWORD")
	if pw == "" {
		log.Fatal("spa-app: set SPA_APP_PASSWORD, the account's password")
	}
	log.Printf("spa-app on http://%s", *listen)
	log.Fatal(http.ListenAndServe(*listen, spa.New(*user, pw).Handler()))
}
