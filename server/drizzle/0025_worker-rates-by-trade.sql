-- Reports (GET /v1/workers/aggregate): the sum of hourly_rate grouped by trade reads this index alone,
-- never the rows, so a million workers answer within a second (bench/README.md).
CREATE INDEX `workers_rates_by_trade` ON `workers` (`company_id`,`live`,`trade_id`,`hourly_rate`);
