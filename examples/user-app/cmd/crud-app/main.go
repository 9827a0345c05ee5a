// Command crud-app runs the example staging app on an address, for trapline run --upstream:
//
//	go run ./cmd/crud-app -listen 127.0.0.1:8080 &
//	trapline run --traps-dir pack --upstream http://127.0.0.1:8080 --upstream-host portale.example.test
//
// With $CRUD_APP_PASSWORD set, every page but /login and the JSON API asks for a login as -user
// (default operatore) with that password first (crud.App.WithLogin): the example of a login as data
// (loginpack, trapline run --login).
package main

import (
	"flag"
	"log"
	"net/http"
	"os"

	"example.com/user-app/crud"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8080", "the address to listen on (loopback)")
	user := flag.String("user", "operatore", "the test account's user name, with $CRUD_APP_PASSWORD")
	flag.Parse()
	app := crud.New(5)
	if pw := os.Getenv("CRUD_APP_PASSWORD"); pw != "" {
		app.WithLogin(*user, pw)
		log.Printf("crud-app: pages ask for a login as %s", *user)
	}
	log.Printf("crud-app on http://%s", *listen)
	log.Fatal(http.ListenAndServe(*listen, app.Handler()))
}
