module gmpi

go 1.26.8

require (
	github.com/BurntSushi/toml v1.6.0 // indirect
	github.com/mattn/go-pointer v0.0.1 // indirect
	golang.org/x/sys v0.49.0 // indirect
)
