module example.com/domainsales/signing

go 1.19
