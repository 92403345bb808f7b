-- Each secret a rotation replaces keeps signing until its own expiry: the one previous secret becomes a list of them.
ALTER TABLE `webhook_endpoints` ADD `previous_secrets` text;--> statement-breakpoint
UPDATE `webhook_endpoints` SET `previous_secrets` = CONCAT('[{"secret":"', `previous_secret`, '","until":"', DATE_FORMAT(`previous_secret_until`, '%Y-%m-%dT%H:%i:%s.'), LPAD(FLOOR(MICROSECOND(`previous_secret_until`) / 1000), 3, '0'), 'Z"}]') WHERE `previous_secret` IS NOT NULL AND `previous_secret_until` > UTC_TIMESTAMP(3);--> statement-breakpoint
ALTER TABLE `webhook_endpoints` DROP COLUMN `previous_secret`;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` DROP COLUMN `previous_secret_until`;
