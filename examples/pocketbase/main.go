// Command pocketbase is the PocketBase example's app: PocketBase (a Go module; its admin dashboard at
// /_/ is a Svelte single-page app: hash routes, a record side panel, row menus, confirmation modals,
// icon-font glyphs in names, the session in localStorage, every change an XHR) with one collection of
// pratiche, seeded on start. docs/your-app.md runs trapline against it (make pocketbase).
//
//	pocketbase serve --http 127.0.0.1:8097 --dir DATA   # PocketBase's own serve, plus the seed below
//	pocketbase reset --dir DATA                          # the pack's reset: the five pratiche again
//
// The superuser is admin@example.test with the password in $POCKETBASE_PASSWORD (make pocketbase sets
// a throwaway one); it never appears in a file of the example.
package main

import (
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/pocketbase/pocketbase"
	"github.com/pocketbase/pocketbase/core"
	"github.com/spf13/cobra"
)

const (
	superuser  = "admin@example.test"
	collection = "pratiche"
)

// seedTitles are the pratiche every run starts from, each "aperta".
var seedTitles = []string{"Contributo sportivo", "Passo carrabile", "Occupazione suolo", "Cambio residenza", "Bonus asilo"}

func main() {
	password := os.Getenv("POCKETBASE_PASSWORD")
	if password == "" {
		log.Fatal("pocketbase: set POCKETBASE_PASSWORD (the superuser's password)")
	}
	app := pocketbase.New()
	app.OnServe().BindFunc(func(e *core.ServeEvent) error {
		if err := seed(e.App, password); err != nil {
			return fmt.Errorf("seed: %w", err)
		}
		return e.Next()
	})
	app.RootCmd.AddCommand(&cobra.Command{
		Use:   "reset",
		Short: "Make the superuser and the pratiche collection if missing, and the five pratiche again",
		RunE:  func(*cobra.Command, []string) error { return seed(app, password) },
	})
	if err := app.Start(); err != nil {
		log.Fatal(err)
	}
}

// seed makes the superuser and the pratiche collection when they are missing, then resets the records.
func seed(app core.App, password string) error {
	sus, err := app.FindCollectionByNameOrId(core.CollectionNameSuperusers)
	if err != nil {
		return err
	}
	if _, err := app.FindAuthRecordByEmail(sus, superuser); err != nil {
		su := core.NewRecord(sus)
		su.SetEmail(superuser)
		su.SetPassword(password)
		if err := app.Save(su); err != nil {
			return fmt.Errorf("superuser: %w", err)
		}
	}
	if _, err := app.FindCollectionByNameOrId(collection); err != nil {
		c := core.NewBaseCollection(collection)
		// stato is text, as many apps keep a status: a field a person (and the diligent planner) types into.
		c.Fields.Add(&core.TextField{Name: "titolo", Required: true}, &core.TextField{Name: "stato", Required: true})
		if err := app.Save(c); err != nil {
			return fmt.Errorf("collection: %w", err)
		}
	}
	return resetRecords(app)
}

// resetRecords deletes every pratica and makes the seed ones again.
func resetRecords(app core.App) error {
	c, err := app.FindCollectionByNameOrId(collection)
	if err != nil {
		return err
	}
	old, err := app.FindAllRecords(c)
	if err != nil {
		return err
	}
	for _, r := range old {
		if err := app.Delete(r); err != nil {
			return err
		}
	}
	var errs []error
	for _, t := range seedTitles {
		r := core.NewRecord(c)
		r.Set("titolo", t)
		r.Set("stato", "aperta")
		errs = append(errs, app.Save(r))
	}
	return errors.Join(errs...)
}
