package agentkit

// NavigationCounter is implemented by drivers that count the browser's own navigations of the page:
// every committed navigation of its main frame (a goto, a link, a form submit, a script's
// location change, a meta refresh) and every redirect hop of one. The loop's navigation budget reads
// it, so a navigation the planner did not ask for by name is still counted. Drivers without it (test
// fakes) are counted from the loop's own gotos and link clicks.
type NavigationCounter interface {
	// Navigations returns how many navigations the page has made since the driver was created.
	Navigations() int
}

// syncNavigations takes the driver's count of navigations, when it keeps one, made since the start
// page was opened; the loop's own count stays the floor.
func (r *run) syncNavigations() {
	nc, ok := r.drv.(NavigationCounter)
	if !ok {
		return
	}
	if n := nc.Navigations() - r.navBase; n > r.usage.Navigations {
		r.usage.Navigations = n
	}
}

// markNavigationBase records the driver's count once the start page is open: opening it is not one
// of the run's navigations.
func (r *run) markNavigationBase() {
	if nc, ok := r.drv.(NavigationCounter); ok {
		r.navBase = nc.Navigations()
	}
}
