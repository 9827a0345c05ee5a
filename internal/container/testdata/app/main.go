// Command app is a tiny staging app for the container package's tests, built static and put in an
// image FROM scratch: GET /api/items lists the items as JSON, POST /api/items/delete removes one.
package main

import (
	"encoding/json"
	"log"
	"net/http"
	"sync"
)

func main() {
	var mu sync.Mutex
	items := []string{"a", "b", "c"}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/items", func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"items": items})
	})
	mux.HandleFunc("POST /api/items/delete", func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if len(items) > 0 {
			items = items[1:]
		}
		w.WriteHeader(http.StatusNoContent)
	})
	log.Fatal(http.ListenAndServe(":8080", mux))
}
