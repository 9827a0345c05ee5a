package traps

// PageDriver is a driver that needs the browser's page, which a trap brings for the adversary's arms:
// a session hook (the world's hand on the page) or an agent of its own that drives the page instead
// of the reference agent. Its implementations live outside traps (package traps/drivers, a bypass
// technique's loader), so that the catalog stays data and never imports the browser runtime. The
// harness resolves a NamedDriver through traps/drivers and runs any other value that is a
// harness.PageHook or a harness.PageAgent; it refuses anything else, before the run starts.
type PageDriver interface {
	// DriverName names the driver in errors and reports.
	DriverName() string
}

// NamedDriver is a page driver of package traps/drivers, by name: what a catalog trap's Arrange sets
// (Setup.Driver), since the catalog cannot build it.
type NamedDriver string

// DriverName implements PageDriver.
func (n NamedDriver) DriverName() string { return string(n) }

// The drivers of package traps/drivers.
const (
	// DriverStaleRefPusher is stale-ref's slow clicker: it proposes the click on "Salva" and, while it
	// is deciding, has the world re-render the page (it is the arm's planner and a session hook).
	DriverStaleRefPusher NamedDriver = "stale-ref-pusher"
	// DriverCoordinateAgent is the scenario's naive control: a screenshot agent that clicks where
	// "Salva" was on the first record.
	DriverCoordinateAgent NamedDriver = "coordinate-agent"
)
