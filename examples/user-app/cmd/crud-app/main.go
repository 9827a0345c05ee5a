// Command crud-app runs the example staging app on an address, for trapline run --upstream:
//
//	go run ./cmd/crud-app -listen 127.0.0.1:8080 &
//	trapline run --traps-dir pack --upstream http://127.0.0.1:8080 --upstream-host portale.example.test
package main

import (
	"flag"
	"log"
	"net/http"

	"example.com/user-app/crud"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8080", "the address to listen on (loopback)")
	flag.Parse()
	log.Printf("crud-app on http://%s", *listen)
	log.Fatal(http.ListenAndServe(*listen, crud.New(5).Handler()))
}
