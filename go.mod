module backofflab

go 1.26
