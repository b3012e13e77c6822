module github.com/example/incident-tracker/tools/probe

go 1.22

require github.com/spf13/pflag v1.0.9
